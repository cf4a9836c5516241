// novacat_write_fits_fixtures <dir>: writes the committed FITS fixtures under
// <dir> (the repository's fixtures/): spectra/valid_image_wcs.fits,
// spectra/valid_table.fits, spectra/nan_flux.fits, spectra/wrong_datasum.fits,
// the real providers' layouts spectra/eso_sdp_uves.fits,
// spectra/hst_stis_x1d.fits and spectra/iue_swp_mxlo.fits (and the latter
// gzip-compressed, spectra/iue_swp_mxlo.fits.gz, as MAST serves it), and
// photometry/v1500cyg_aavso.fits (the rows of the hand-written
// photometry/v1500cyg_aavso.csv). The output is deterministic, so a rerun
// changes no committed byte unless the writer changed.
#include <exception>
#include <filesystem>
#include <iostream>

#include "novacat/fits/fixtures.h"

int main(int argc, char** argv) {
  using novacat::fits::SpectrumFixture;
  if (argc != 2) {
    std::cerr << "usage: novacat_write_fits_fixtures <dir>\n";
    return 2;
  }
  try {
    std::filesystem::path dir = argv[1];
    std::filesystem::create_directories(dir / "spectra");
    std::filesystem::create_directories(dir / "photometry");
    const std::pair<const char*, SpectrumFixture> spectra[] = {
        {"valid_image_wcs.fits", SpectrumFixture::kValidImageWcs},
        {"valid_table.fits", SpectrumFixture::kValidTable},
        {"nan_flux.fits", SpectrumFixture::kNanFlux},
        {"wrong_datasum.fits", SpectrumFixture::kWrongDatasum},
        {"eso_sdp_uves.fits", SpectrumFixture::kEsoSdpUves},
        {"hst_stis_x1d.fits", SpectrumFixture::kHstStisX1d},
        {"iue_swp_mxlo.fits", SpectrumFixture::kIueSwpMxlo},
        {"iue_swp_mxlo.fits.gz", SpectrumFixture::kIueSwpMxloGzip},
    };
    for (const auto& [name, kind] : spectra) {
      novacat::fits::WriteSpectrumFixture(dir / "spectra" / name, kind);
      std::cout << (dir / "spectra" / name).string() << "\n";
    }
    std::filesystem::path photometry =
        dir / "photometry" / "v1500cyg_aavso.fits";
    novacat::fits::WritePhotometryFits(photometry,
                                       novacat::fits::V1500CygPhotometryRows());
    std::cout << photometry.string() << "\n";
  } catch (const std::exception& e) {
    std::cerr << "novacat_write_fits_fixtures: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
