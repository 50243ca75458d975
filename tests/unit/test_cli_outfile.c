/* test_cli_outfile.c - the command's output files (cli_outfile.c: atomic outputs, devices) and the base layer's registry and
 * lg_read_input (limit, NUL bytes, CR line ends), with allocation failures
 * injected at every step. Writes only in a private mkdtemp folder. */
#include "cli_outfile.h"
#include "test_util.h"

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[] = "/tmp/lg-test-base-file-XXXXXX";

static char *at(const char *name) {
  static char buf[4][256];
  static int k;
  k = (k + 1) % 4;
  snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
  return buf[k];
}

static int entries(void) { /* files in dir */
  DIR *d = opendir(dir);
  int n = 0;
  for (struct dirent *e; d && (e = readdir(d));) n += e->d_name[0] != '.' || e->d_name[1] > '.';
  if (d) closedir(d);
  return n;
}

static void put(const char *path, const char *text, size_t n) {
  FILE *f = fopen(path, "wb");
  fwrite(text, 1, n, f);
  fclose(f);
}

static int content_is(const char *path, const char *want) {
  char buf[256] = "";
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  size_t k = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[k] = 0;
  return strcmp(buf, want) == 0;
}

static void test_regular(void) {
  lg_out o;
  lg_diag d;
  lg_diag_clear(&d);
  CHECK(lg_out_open(&o, at("a.csv"), &d) == LG_OK && !lg_out_direct(&o));
  fputs("hello\n", o.f);
  CHECK(entries() == 1); /* only the temporary so far */
  CHECK(lg_out_commit(&o, &d) == LG_OK);
  CHECK(content_is(at("a.csv"), "hello\n") && entries() == 1);
  chmod(at("a.csv"), 0604);
  CHECK(lg_out_open(&o, at("a.csv"), &d) == LG_OK);
  fputs("again\n", o.f);
  lg_out_abort(&o);
  CHECK(content_is(at("a.csv"), "hello\n") && entries() == 1); /* abort: old file kept */
  CHECK(lg_out_open(&o, at("a.csv"), &d) == LG_OK);
  fputs("rows", o.f);
  CHECK(lg_out_commit_to(&o, at("a.partial.csv"), &d) == LG_OK);
  CHECK(content_is(at("a.partial.csv"), "rows") && content_is(at("a.csv"), "hello\n"));
  struct stat st;
  CHECK(stat(at("a.partial.csv"), &st) == 0 && (st.st_mode & 0777) == 0604);
  unlink(at("a.partial.csv"));
  unlink(at("a.csv"));
}

static void test_all_or_nothing(void) {
  lg_out a, b;
  lg_diag d;
  lg_diag_clear(&d);
  mkdir(at("x.h"), 0700);
  CHECK(lg_out_open(&a, at("x.c"), &d) == LG_OK);
  CHECK(lg_out_open(&b, at("x.h"), &d) == LG_ERR_IO && strstr(d.message, "folder"));
  CHECK(strstr(d.file, "x.h") != NULL);
  lg_out_abort(&a);
  lg_out_abort(&b); /* safe after a failed open */
  CHECK(entries() == 1);
  rmdir(at("x.h"));
  lg_diag_clear(&d);
  CHECK(lg_out_open(&a, at("y.c"), &d) == LG_OK && lg_out_open(&b, at("y.h"), &d) == LG_OK);
  fputs("c", a.f);
  fputs("h", b.f);
  lg_out *const both[2] = {&a, &b};
  CHECK(lg_out_commit_all(both, 2, &d) == LG_OK);
  CHECK(content_is(at("y.c"), "c") && content_is(at("y.h"), "h") && entries() == 2);
  unlink(at("y.c"));
  unlink(at("y.h"));
}

static void test_devices(void) {
  lg_out o;
  lg_diag d;
  lg_diag_clear(&d);
  struct stat before, after;
  stat("/dev/null", &before);
  CHECK(lg_out_open(&o, "/dev/null", &d) == LG_OK && lg_out_direct(&o));
  fputs("nothing\n", o.f);
  CHECK(lg_out_commit(&o, &d) == LG_OK);
  CHECK(stat("/dev/null", &after) == 0 && S_ISCHR(after.st_mode) &&
        after.st_rdev == before.st_rdev);
  CHECK(lg_out_open(&o, "/dev/full", &d) == LG_OK && lg_out_direct(&o));
  fputs("x\n", o.f);
  CHECK(lg_out_commit(&o, &d) == LG_ERR_IO && strstr(d.message, "No space"));
  lg_diag_clear(&d);
  CHECK(lg_out_open(&o, at("missing/f.csv"), &d) == LG_ERR_IO &&
        strstr(d.message, "missing") && strstr(d.hint, "create the folder"));
}

static void test_registry(void) {
  put(at("t1"), "x", 1);
  mkdir(at("d"), 0700);
  put(at("d/t2"), "y", 1);
  int s1 = lg_temp_register(at("t1"), 0), s2 = lg_temp_register(at("d/t2"), 0);
  int s3 = lg_temp_register(at("d"), 1);
  CHECK(s1 >= 0 && s2 >= 0 && s3 >= 0 && s1 != s2 && s2 != s3);
  lg_temp_remove_all(); /* files first, then the folder */
  CHECK(entries() == 0);
  lg_temp_forget(s1);
  lg_temp_forget(s2);
  lg_temp_forget(s3);
  put(at("kept"), "z", 1);
  lg_temp_forget(lg_temp_register(at("kept"), 0));
  lg_temp_remove_all();
  CHECK(entries() == 1);
  unlink(at("kept"));
}

static void test_read(void) {
  char *buf;
  size_t len;
  lg_diag d;
  lg_diag_clear(&d);
  put(at("m.lag"), "a\rb\r\nc\r", 7);
  CHECK(lg_read_input(at("m.lag"), "m.lag", 100, &buf, &len, &d) == LG_OK && len == 7 &&
        memcmp(buf, "a\nb\r\nc\n", 8) == 0);
  lg_free(buf);
  CHECK(lg_read_input(at("m.lag"), "m.lag", 7, &buf, &len, &d) == LG_OK);
  lg_free(buf);
  CHECK(lg_read_input(at("m.lag"), "m.lag", 6, &buf, &len, &d) == LG_ERR_IO && !buf);
  lg_diag_clear(&d);
  put(at("n.lag"), "x\r\ny\rab\0", 8);
  CHECK(lg_read_input(at("n.lag"), "n.lag", 100, &buf, &len, &d) == LG_ERR_MODEL);
  CHECK(d.line == 3 && d.col == 3 && strstr(d.message, "NUL"));
  lg_diag_clear(&d);
  put(at("n.lag"), "x \xff\0 \xc3\xa9", 7); /* malformed first: left to the lexer */
  CHECK(lg_read_input(at("n.lag"), "n.lag", 100, &buf, &len, &d) == LG_OK && len == 7);
  lg_free(buf);
  put(at("n.lag"), "# \xc3\xa9\n\0", 6); /* after well-formed UTF-8: reported */
  CHECK(lg_read_input(at("n.lag"), "n.lag", 100, &buf, &len, &d) == LG_ERR_MODEL &&
        d.line == 2 && d.col == 1);
  lg_diag_clear(&d);
  CHECK(lg_read_input("/dev/zero", "zero", 1 << 20, &buf, &len, &d) == LG_ERR_MODEL &&
        d.line == 1 && d.col == 1);
  lg_diag_clear(&d);
  CHECK(lg_read_input(dir, "dir", 100, &buf, &len, &d) == LG_ERR_IO);
  unlink(at("m.lag"));
  unlink(at("n.lag"));
}

/* Every allocation failing in turn: NOMEM or success, never a leak (LSan)
 * and never a temporary left behind. */
static void test_out_of_memory(void) {
  int ok = 1;
  put(at("m.lag"), "abc\r", 4);
  for (long k = 0; k < 40; k++) {
    lg_diag d;
    lg_diag_clear(&d);
    lg_out o;
    lg_alloc_fail_after(k);
    if (lg_out_open(&o, at("o.csv"), &d) == LG_OK) {
      fputs("row\n", o.f);
      lg_out_commit(&o, &d);
    }
    char *buf = NULL;
    size_t len;
    lg_diag_clear(&d);
    if (lg_read_input(at("m.lag"), "m", 100, &buf, &len, &d) == LG_OK) lg_free(buf);
    lg_alloc_fail_after(-1);
    unlink(at("o.csv"));
    ok = ok && entries() == 1;
  }
  CHECK(ok);
  unlink(at("m.lag"));
}

int main(void) {
  if (!mkdtemp(dir)) return 1;
  test_regular();
  test_all_or_nothing();
  test_devices();
  test_registry();
  test_read();
  test_out_of_memory();
  rmdir(dir);
  return tu_summary("test_cli_outfile");
}
