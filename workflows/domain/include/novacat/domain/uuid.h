// Name-based UUIDs (RFC 4122 / RFC 9562 version 5): the stable dataset_id
// and reference_id. The same namespace and name give the same UUID on every
// run, host and version of this library, so re-discovering a product or a
// reference yields the id it already has, with no lookup.
#pragma once

#include <string>
#include <string_view>

#include "novacat/domain/failure.h"

namespace novacat::domain {

// Namespaces of the ids this library derives. Fixed forever: changing one
// changes every id derived from it.
inline constexpr std::string_view kDatasetIdNamespace =
    "c36b09e0-7830-48ef-b675-b0555fc0ccec";
inline constexpr std::string_view kReferenceIdNamespace =
    "a129b9f0-9bf4-414a-a9f9-4642d778f8e0";

// UUID version 5: the first 16 bytes of SHA-1(namespace bytes || name
// bytes), version nibble 5, variant bits 10; lower-case 8-4-4-4-12.
// UuidV5("6ba7b810-9dad-11d1-80b4-00c04fd430c8", "python.org") ==
// "886313e1-3b8a-5372-9b90-0c9aee199e5d" (Python's uuid.uuid5 with
// NAMESPACE_DNS). Throws UuidError kInvalidNamespace when `namespace_uuid`
// is not a UUID.
std::string UuidV5(std::string_view namespace_uuid, std::string_view name);

// True for 8-4-4-4-12 hex digits (either case): any UUID.
bool IsUuid(std::string_view text);

// True for 8-4-4-4-12 hex digits (either case) with version nibble 5 and
// variant bits 10.
bool IsUuidV5(std::string_view text);

}  // namespace novacat::domain
