// A scripted HTTP/1.1 server on 127.0.0.1 for client tests: it answers
// the n-th request with the n-th canned Answer whatever was asked (or
// hangs, or resets the connection, or fails the answer half-way: see
// Mode), keeps every request it got, and stops after the last answer.
// Requests must carry Content-Length bodies (or none), which is what
// libcurl sends.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace novacat::testing {

class FakeServer {
 public:
  enum class Mode {
    kAnswer,  // the whole answer
    kHang,    // no answer: wait until the client gives up
    kReset,   // no answer: close the connection with a TCP RST
    // The head (with the Content-Length of the whole body) and the first
    // half of the body, then a close: a body shorter than announced.
    kTruncate,
    // The head (Content-Length of the whole body), then nothing until the
    // client gives up: a stalled transfer.
    kStall,
    // The head and the first half of the body, a pause (for the client to
    // read them), then a TCP RST: a reset in the middle of a body.
    kResetInBody,
    // The head without Content-Length and with "Connection: close", the
    // body, then a close: a body of unannounced length.
    kUnsized,
  };
  struct Answer {
    Answer(int status_ = 200, std::string body_ = "",
           Mode mode_ = Mode::kAnswer, std::string headers_ = "",
           std::string content_type_ = "application/x-amz-json-1.0")
        : status(status_),
          body(std::move(body_)),
          mode(mode_),
          headers(std::move(headers_)),
          content_type(std::move(content_type_)) {}
    int status;
    std::string body;
    Mode mode;
    // Extra response header lines, each ending in "\r\n".
    std::string headers;
    // The Content-Type header's value; none when empty.
    std::string content_type;
  };

  explicit FakeServer(std::vector<Answer> answers)
      : answers_(std::move(answers)) {
    listener_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof address;
    bind(listener_, reinterpret_cast<sockaddr*>(&address), size);
    getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &size);
    port_ = ntohs(address.sin_port);
    listen(listener_, 8);
    thread_ = std::thread([this] { Serve(); });
  }
  ~FakeServer() {
    stop_ = true;
    thread_.join();
    close(listener_);
  }

  std::string endpoint() const {
    return "http://127.0.0.1:" + std::to_string(port_);
  }
  // Each request as received: head (request line and headers) and body.
  std::vector<std::pair<std::string, std::string>> requests() {
    std::lock_guard lock(mutex_);
    return requests_;
  }

 private:
  // Waits until `fd` is readable or the server stops.
  bool Readable(int fd) {
    while (!stop_) {
      pollfd p{fd, POLLIN, 0};
      if (poll(&p, 1, 20) > 0) return true;
    }
    return false;
  }
  void Serve() {
    size_t next = 0;
    while (next < answers_.size() && Readable(listener_)) {
      int fd = accept(listener_, nullptr, nullptr);
      if (fd < 0) continue;
      std::string buffer;
      while (next < answers_.size()) {
        // One request: the head, then Content-Length bytes of body.
        size_t head_end;
        while ((head_end = buffer.find("\r\n\r\n")) == std::string::npos) {
          if (!Read(fd, buffer)) break;
        }
        if (head_end == std::string::npos) break;
        std::string head = buffer.substr(0, head_end);
        size_t length = 0;
        if (size_t at = head.find("Content-Length: "); at != std::string::npos)
          length = std::stoul(head.substr(at + 16));
        // libcurl's PUTs wait for a go-ahead before their body.
        if (head.find("\r\nExpect: 100-continue") != std::string::npos &&
            buffer.size() < head_end + 4 + length)
          WriteAll(fd, "HTTP/1.1 100 Continue\r\n\r\n");
        while (buffer.size() < head_end + 4 + length) {
          if (!Read(fd, buffer)) break;
        }
        {
          std::lock_guard lock(mutex_);
          requests_.emplace_back(head, buffer.substr(head_end + 4, length));
        }
        buffer.erase(0, head_end + 4 + length);
        const Answer& answer = answers_[next++];
        if (answer.mode == Mode::kHang) {
          while (Readable(fd) && Read(fd, buffer)) {
          }
          break;
        }
        if (answer.mode == Mode::kReset) {
          Reset(fd);
          break;
        }
        std::string reply =
            "HTTP/1.1 " + std::to_string(answer.status) + " Status\r\n";
        if (!answer.content_type.empty())
          reply += "Content-Type: " + answer.content_type + "\r\n";
        reply += answer.headers;
        if (answer.mode == Mode::kUnsized) {
          reply += "Connection: close\r\n\r\n";
          WriteAll(fd, reply + answer.body);
          break;
        }
        reply += "Content-Length: " + std::to_string(answer.body.size()) +
                 "\r\n\r\n";
        const std::string half = answer.body.substr(0, answer.body.size() / 2);
        if (answer.mode == Mode::kTruncate) {
          WriteAll(fd, reply + half);
          break;
        }
        if (answer.mode == Mode::kStall) {
          WriteAll(fd, reply);
          while (Readable(fd) && Read(fd, buffer)) {
          }
          break;
        }
        if (answer.mode == Mode::kResetInBody) {
          WriteAll(fd, reply + half);
          for (int i = 0; i < 10 && !stop_; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
          Reset(fd);
          break;
        }
        if (!WriteAll(fd, reply + answer.body)) break;
      }
      close(fd);
    }
  }
  // Makes the coming close(fd) send a TCP RST.
  static void Reset(int fd) {
    linger hard{1, 0};
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
  }
  // Writes all of `data` (a large body takes several writes).
  static bool WriteAll(int fd, const std::string& data) {
    size_t done = 0;
    while (done < data.size()) {
      ssize_t n =
          send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
      if (n <= 0) return false;
      done += static_cast<size_t>(n);
    }
    return true;
  }
  bool Read(int fd, std::string& buffer) {
    if (!Readable(fd)) return false;
    char chunk[4096];
    ssize_t n = read(fd, chunk, sizeof chunk);
    if (n <= 0) return false;
    buffer.append(chunk, n);
    return true;
  }

  std::vector<Answer> answers_;
  int listener_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::mutex mutex_;
  std::vector<std::pair<std::string, std::string>> requests_;
  std::thread thread_;
};

}  // namespace novacat::testing
