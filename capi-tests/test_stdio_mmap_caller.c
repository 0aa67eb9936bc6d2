/* blosc2_stdio_mmap_{write,read,size,truncate} on a blosc2_stdio_mmap the
 * caller filled in itself (its own mapping of its own file, never passed to
 * blosc2_stdio_mmap_open): they work on the struct's fields as the
 * reference's do.  Writes inside the mapping land in the caller's pages and
 * extend file_size (and the file); a write past the mapping grows it;
 * reads stop at file_size. */
#include "test_common.h"
#include <blosc2/blosc2-stdio.h>
#include <fcntl.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int64_t disk_size(int fd) {
  struct stat s;
  return fstat(fd, &s) == 0 ? (int64_t)s.st_size : -1;
}

static void one_mode(const char *mode) {
  const char *path = "test_stdio_mmap_caller.bin";
  unlink(path);
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
  REQUIRE(fd >= 0);
  long page = sysconf(_SC_PAGESIZE);
  REQUIRE(page > 0);
  REQUIRE(ftruncate(fd, 16) == 0);
  char *addr = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  REQUIRE(addr != MAP_FAILED);
  memset(addr, 'a', 16);

  blosc2_stdio_mmap m = BLOSC2_STDIO_MMAP_DEFAULTS;
  m.mode = mode;
  m.addr = addr;
  m.file_size = 16;
  m.mapping_size = (size_t)page;
  m.is_memory_only = false;
  m.fd = fd;
  m.access_flags = PROT_READ | PROT_WRITE;
  m.map_flags = MAP_SHARED;

  /* inside the file */
  const char data[4] = {'w', 'x', 'y', 'z'};
  CHECK_EQ_INT(blosc2_stdio_mmap_write(data, 1, 4, 8, &m), 4);
  CHECK_MEM(addr + 8, data, 4);
  CHECK_EQ_INT(addr[7], 'a');
  CHECK_EQ_INT(addr[12], 'a');
  CHECK_EQ_INT(m.file_size, 16);
  CHECK(m.addr == addr);
  CHECK_EQ_INT(blosc2_stdio_mmap_size(&m), 16);

  void *p = NULL;
  CHECK_EQ_INT(blosc2_stdio_mmap_read(&p, 1, 4, 8, &m), 4);
  CHECK(p == addr + 8);
  CHECK_EQ_INT(blosc2_stdio_mmap_read(&p, 2, 8, 0, &m), 8);
  CHECK(p == addr);
  /* past file_size: nothing, and a NULL pointer */
  p = addr;
  CHECK_EQ_INT(blosc2_stdio_mmap_read(&p, 1, 4, 14, &m), 0);
  CHECK(p == NULL);

  /* past the file but inside the mapping: file_size and the file grow */
  const int32_t words[2] = {0x01020304, 0x05060708};
  CHECK_EQ_INT(blosc2_stdio_mmap_write(words, 4, 2, 100, &m), 2);
  CHECK_EQ_INT(m.file_size, 108);
  CHECK_EQ_INT(disk_size(fd), 108);
  CHECK(m.addr == addr);
  CHECK_EQ_INT(m.mapping_size, page);
  CHECK_MEM(addr + 100, words, 8);
  CHECK_EQ_INT(blosc2_stdio_mmap_size(&m), 108);
  p = NULL;
  CHECK_EQ_INT(blosc2_stdio_mmap_read(&p, 4, 2, 100, &m), 2);
  CHECK(p == addr + 100);

  /* nothing to write, or bad arguments: 0, nothing changes */
  CHECK_EQ_INT(blosc2_stdio_mmap_write(data, 1, 0, 8, &m), 0);
  CHECK_EQ_INT(blosc2_stdio_mmap_write(data, 1, 4, -1, &m), 0);
  CHECK_EQ_INT(blosc2_stdio_mmap_write(NULL, 1, 4, 8, &m), 0);
  CHECK_EQ_INT(blosc2_stdio_mmap_read(&p, -1, 4, 8, &m), 0);
  CHECK_EQ_INT(m.file_size, 108);

  /* past the mapping: the file grows and the mapping is made larger
     (twice the new file size), the bytes already there kept */
  size_t at = (size_t)page + 10;
  CHECK_EQ_INT(blosc2_stdio_mmap_write(data, 2, 2, (int64_t)at, &m), 2);
  CHECK_EQ_INT(m.file_size, at + 4);
  CHECK_EQ_INT(m.mapping_size, 2 * (at + 4));
  CHECK_EQ_INT(disk_size(fd), (int64_t)(at + 4));
  CHECK_MEM(m.addr + at, data, 4);
  CHECK_MEM(m.addr + 100, words, 8);
  CHECK_MEM(m.addr + 8, data, 4);

  /* truncate: file_size and the file follow */
  CHECK_EQ_INT(blosc2_stdio_mmap_truncate(&m, 50), 0);
  CHECK_EQ_INT(m.file_size, 50);
  CHECK_EQ_INT(disk_size(fd), 50);
  CHECK_EQ_INT(blosc2_stdio_mmap_read(&p, 1, 4, 48, &m), 0);

  /* the writes went to the file through the caller's shared mapping */
  munmap(m.addr, m.mapping_size);
  char back[12];
  CHECK_EQ_INT(pread(fd, back, 12, 0), 12);
  CHECK_MEM(back + 8, data, 4);
  CHECK_EQ_INT(back[0], 'a');
  close(fd);
  unlink(path);
}

int main(void) {
  blosc2_init();
  one_mode("w+");
  one_mode("r+");
  blosc2_destroy();
  TEST_MAIN_END("test_stdio_mmap_caller");
}
