/* blosc2_error_string for every error code, plus unknown codes. */
#include "test_common.h"

int main(void) {
  static const struct { int code; const char *msg; } table[] = {
    {BLOSC2_ERROR_FAILURE, "Generic failure"},
    {BLOSC2_ERROR_STREAM, "Bad stream"},
    {BLOSC2_ERROR_DATA, "Invalid data"},
    {BLOSC2_ERROR_MEMORY_ALLOC, "Memory alloc/realloc failure"},
    {BLOSC2_ERROR_READ_BUFFER, "Not enough space to read"},
    {BLOSC2_ERROR_WRITE_BUFFER, "Not enough space to write"},
    {BLOSC2_ERROR_CODEC_SUPPORT, "Codec not supported"},
    {BLOSC2_ERROR_CODEC_PARAM, "Invalid parameter supplied to codec"},
    {BLOSC2_ERROR_CODEC_DICT, "Codec dictionary error"},
    {BLOSC2_ERROR_VERSION_SUPPORT, "Version not supported"},
    {BLOSC2_ERROR_INVALID_HEADER, "Invalid value in header"},
    {BLOSC2_ERROR_INVALID_PARAM, "Invalid parameter supplied to function"},
    {BLOSC2_ERROR_FILE_READ, "File read failure"},
    {BLOSC2_ERROR_FILE_WRITE, "File write failure"},
    {BLOSC2_ERROR_FILE_OPEN, "File open failure"},
    {BLOSC2_ERROR_NOT_FOUND, "Not found"},
    {BLOSC2_ERROR_RUN_LENGTH, "Bad run length encoding"},
    {BLOSC2_ERROR_FILTER_PIPELINE, "Filter pipeline error"},
    {BLOSC2_ERROR_CHUNK_INSERT, "Chunk insert failure"},
    {BLOSC2_ERROR_CHUNK_APPEND, "Chunk append failure"},
    {BLOSC2_ERROR_CHUNK_UPDATE, "Chunk update failure"},
    {BLOSC2_ERROR_2GB_LIMIT, "Sizes larger than 2gb not supported"},
    {BLOSC2_ERROR_SCHUNK_COPY, "Super-chunk copy failure"},
    {BLOSC2_ERROR_FRAME_TYPE, "Wrong type for frame"},
    {BLOSC2_ERROR_FILE_TRUNCATE, "File truncate failure"},
    {BLOSC2_ERROR_THREAD_CREATE, "Thread or thread context creation failure"},
    {BLOSC2_ERROR_POSTFILTER, "Postfilter failure"},
    {BLOSC2_ERROR_FRAME_SPECIAL, "Special frame failure"},
    {BLOSC2_ERROR_SCHUNK_SPECIAL, "Special super-chunk failure"},
    {BLOSC2_ERROR_PLUGIN_IO, "IO plugin error"},
    {BLOSC2_ERROR_FILE_REMOVE, "Remove file failure"},
    {BLOSC2_ERROR_NULL_POINTER, "Pointer is null"},
    {BLOSC2_ERROR_INVALID_INDEX, "Invalid index"},
    {BLOSC2_ERROR_METALAYER_NOT_FOUND, "Metalayer has not been found"},
    {BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED, "Maximum buffersize exceeded"},
    {BLOSC2_ERROR_TUNER, "Tuner failure"},
    {BLOSC2_ERROR_LOCK, "Frame lock failure"},
  };
  size_t nt = sizeof(table) / sizeof(table[0]);
  CHECK_EQ_INT(nt, 37);
  for (size_t i = 0; i < nt; i++) {
    const char *s = blosc2_error_string(table[i].code);
    CHECK_STR(s, table[i].msg);
    /* distinct messages */
    for (size_t j = 0; j < i; j++) CHECK(strcmp(s, blosc2_error_string(table[j].code)) != 0);
    /* legacy print_error() (header inline) agrees */
    CHECK_STR(print_error(table[i].code), table[i].msg);
    /* stable pointer contents */
    CHECK_STR(blosc2_error_string(table[i].code), s);
  }
  static const int unknown[] = {-38, -100, 1, 42, INT_MIN, INT_MAX};
  for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++)
    CHECK_STR(blosc2_error_string(unknown[i]), "Unknown error");
  CHECK(blosc2_error_string(BLOSC2_ERROR_SUCCESS) != NULL);
  TEST_MAIN_END("test_errors");
}
