// A C++17 consumer: RAII wrappers over the C API, a frame written to a file and
// read back, with a metalayer and a vlmetalayer.
#include <blosc2.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

namespace {
struct SchunkDeleter {
  void operator()(blosc2_schunk* s) const { blosc2_schunk_free(s); }
};
using Schunk = std::unique_ptr<blosc2_schunk, SchunkDeleter>;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "FAIL: %s\n", what.c_str());
  std::exit(1);
}
}  // namespace

int main(int argc, char** argv) {
  const std::string path = argc > 1 ? argv[1] : "cpp_consumer.b2frame";
  blosc2_init();
  std::vector<float> data(100'000);
  std::iota(data.begin(), data.end(), 0.5f);

  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = sizeof(float);
  cp.compcode = BLOSC_LZ4;
  cp.filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_BITSHUFFLE;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_storage st{};
  st.contiguous = true;
  st.urlpath = const_cast<char*>(path.c_str());
  st.cparams = &cp;
  st.dparams = &dp;
  blosc2_remove_urlpath(path.c_str());
  {
    Schunk sc(blosc2_schunk_new(&st));
    if (!sc) fail("schunk_new");
    uint8_t meta[] = {1, 2, 3};
    if (blosc2_meta_add(sc.get(), "cpp", meta, sizeof meta) < 0) fail("meta_add");
    for (int i = 0; i < 4; i++)
      if (blosc2_schunk_append_buffer(sc.get(), data.data(), data.size() * sizeof(float)) != i + 1)
        fail("append");
    const char note[] = "written from C++17";
    if (blosc2_vlmeta_add(sc.get(), "note", (uint8_t*)note, sizeof note, nullptr) < 0) fail("vlmeta_add");
  }
  Schunk sc(blosc2_schunk_open(path.c_str()));
  if (!sc) fail("schunk_open");
  if (sc->nchunks != 4) fail("nchunks");
  std::vector<float> back(data.size());
  for (int i = 0; i < 4; i++) {
    int n = blosc2_schunk_decompress_chunk(sc.get(), i, back.data(), back.size() * sizeof(float));
    if (n != (int)(data.size() * sizeof(float)) || back != data) fail("chunk " + std::to_string(i));
  }
  uint8_t* content = nullptr;
  int32_t len = 0;
  if (blosc2_meta_get(sc.get(), "cpp", &content, &len) < 0 || len != 3 || content[2] != 3) fail("meta_get");
  std::free(content);
  if (blosc2_vlmeta_get(sc.get(), "note", &content, &len) < 0) fail("vlmeta_get");
  std::printf("C++17: %s: %lld chunks, ratio %.1f, vlmeta note = \"%s\"\n", path.c_str(),
              (long long)sc->nchunks, (double)sc->nbytes / (double)sc->cbytes, (const char*)content);
  std::free(content);
  sc.reset();
  blosc2_remove_urlpath(path.c_str());
  blosc2_destroy();
  std::printf("cpp-cmake: OK\n");
  return 0;
}
