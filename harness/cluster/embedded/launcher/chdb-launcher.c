/*
 * chdb-launcher: runs the ClickHouse engine shipped in npm chDB (libchdb.so) as a replicated
 * server process.
 *
 * clickhouse-local (which chDB embeds) never configures an interserver endpoint, so a
 * ReplicatedMergeTree stays read-only. Five functions of this exact build are redirected
 * before start-up (offsets and expected bytes: ../README.md);
 * the library's sha256 is verified by the TypeScript side before this program is started.
 *
 * usage: chdb-launcher LIBCHDB ADVERTISE_HOST ADVERTISE_PORT [clickhouse-local args...]
 * Exit codes are part of the contract with harness/cluster/embedded/launcher-exit-codes.ts.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

enum {
  EXIT_USAGE = 64,
  EXIT_DLOPEN = 65,
  EXIT_SYMBOL = 66,
  EXIT_BYTES_MISMATCH = 67,
  EXIT_MPROTECT = 68,
  EXIT_QUERY_FAILED = 69,
};

#define ANCHOR_SYMBOL "chdb_connect"
#define ANCHOR_OFFSET 0xf20f280UL
#define HOOK_SIZE 12

typedef struct {
  const char *name;
  uintptr_t offset;
  unsigned char expected[10];
  void *replacement;
  unsigned char original[HOOK_SIZE];
  unsigned char *site;
} hook_t;

/* libc++ std::string (alternate layout) as the engine was built with it. */
typedef struct { unsigned char bytes[24]; } cxx_string;

typedef struct { cxx_string host; uint16_t port; unsigned char pad[6]; } address_pair;

typedef struct { void *begin, *end, *cap; } cxx_vector;

typedef struct { cxx_string user, password; cxx_vector known_users; } interserver_credentials;

typedef struct { void *ptr, *ctrl; } shared_ptr_pair;

static char advertise_host[23];
static uint16_t advertise_port;

static void make_short_string(cxx_string *out, const char *text) {
  size_t length = strlen(text);
  memset(out, 0, sizeof *out);
  memcpy(out->bytes, text, length);
  out->bytes[23] = (unsigned char)length; /* is_long bit (0x80) clear */
}

/* Context::getInterserverIOAddress() const: sret in rdi, this in rsi. */
static void hook_interserver_address(address_pair *result, const void *context) {
  (void)context;
  memset(result, 0, sizeof *result);
  make_short_string(&result->host, advertise_host);
  result->port = advertise_port;
}

/* Context::getInterserverScheme() const: sret in rdi. */
static void hook_interserver_scheme(cxx_string *result, const void *context) {
  (void)context;
  make_short_string(result, "http");
}

/*
 * A null credentials pointer crashes the fetching side. The handler accepts a request without
 * HTTP auth only when the known-users list holds one (empty user, empty password) pair.
 */
static unsigned char empty_user_pair[48];
static interserver_credentials empty_credentials;

/* Context::getInterserverCredentials() const: shared_ptr with trivial ABI, returned in rax:rdx. */
static shared_ptr_pair hook_interserver_credentials(const void *context) {
  (void)context;
  empty_credentials.known_users.begin = empty_user_pair;
  empty_credentials.known_users.end = empty_user_pair + sizeof empty_user_pair;
  empty_credentials.known_users.cap = empty_user_pair + sizeof empty_user_pair;
  shared_ptr_pair result = {&empty_credentials, NULL};
  return result;
}

/*
 * clickhouse-local installs a Poco error handler that calls std::terminate when an exception
 * escapes a server thread; clickhouse-server installs one that logs it and goes on. A native
 * client that hangs up during the handshake (a peer's Distributed connection abandoned under
 * load) throws NETWORK_ERROR out of TCPHandler: under clickhouse-local's handler the whole node
 * aborts. Poco::ErrorHandler::set is redirected so the server's behaviour holds: the handler
 * below only notes the exception (TCPHandler has already logged it) and the thread goes on.
 * Its vtable follows the order of the engine's Poco::ErrorHandler (read from its callers): two
 * destructors, exception(const Poco::Exception&), exception(const std::exception&), exception(),
 * and the fork's log-message hook (priority, std::string).
 */
typedef struct { const void *const *vptr; } poco_error_handler;

static void tolerant_destructor(void *self) { (void)self; }

static void tolerant_exception(void *self, const void *exception) {
  (void)self;
  (void)exception;
  fputs("chdb-launcher: an exception escaped a server thread; logged by the engine and dropped, as clickhouse-server does\n", stderr);
}

static void tolerant_unknown(void *self) { tolerant_exception(self, NULL); }

/* Poco's Message::Priority: 1 fatal ... 4 warning ... 8 trace; the TCP server's chatter is below warning. */
enum { POCO_PRIORITY_WARNING = 4 };

static void tolerant_message(void *self, int priority, const cxx_string *message) {
  (void)self;
  if (priority > POCO_PRIORITY_WARNING) return;
  const unsigned char *bytes = message->bytes;
  if (bytes[23] & 0x80) {
    const char *data;
    uint64_t size;
    memcpy(&data, bytes, sizeof data);
    memcpy(&size, bytes + 8, sizeof size);
    fprintf(stderr, "chdb-launcher: %.*s\n", (int)size, data);
  } else {
    fprintf(stderr, "chdb-launcher: %.*s\n", (int)bytes[23], (const char *)bytes);
  }
}

static const void *const tolerant_vtable[] = {
    (const void *)tolerant_destructor, (const void *)tolerant_destructor, (const void *)tolerant_exception,
    (const void *)tolerant_exception, (const void *)tolerant_unknown, (const void *)tolerant_message};
static poco_error_handler tolerant_handler = {tolerant_vtable};

/* ErrorHandler::_pHandler, read from the RIP-relative lea at ERROR_HANDLER_SLOT_LEA inside set(). */
#define ERROR_HANDLER_SLOT_LEA 0x3d
static void **error_handler_slot;

/* static ErrorHandler* ErrorHandler::set(ErrorHandler*): installs the tolerant handler whatever is asked. */
static void *hook_error_handler_set(void *handler) {
  (void)handler;
  void *previous = *error_handler_slot;
  *error_handler_slot = &tolerant_handler;
  return previous;
}

static shared_ptr_pair hook_create_handler_factory(void *, const void *, void *, const void *, const void *);

static hook_t hooks[] = {
  {"Context::getInterserverIOAddress", 0x1417c9c0UL,
   {0x41, 0x56, 0x53, 0x48, 0x83, 0xec, 0x48, 0x4c, 0x8b, 0x36}, (void *)hook_interserver_address, {0}, NULL},
  {"Context::getInterserverScheme", 0x1417cac0UL,
   {0x48, 0x8b, 0x06, 0x80, 0xb8, 0x87, 0x01, 0x00, 0x00, 0x00}, (void *)hook_interserver_scheme, {0}, NULL},
  {"Context::getInterserverCredentials", 0x1417c940UL,
   {0x41, 0x57, 0x41, 0x56, 0x53, 0x4c, 0x8b, 0x3f, 0, 0}, (void *)hook_interserver_credentials, {0}, NULL},
  {"createHandlerFactory", 0x18395cc0UL,
   {0x55, 0x41, 0x57, 0x41, 0x56, 0x41, 0x55, 0x41, 0x54, 0x53}, (void *)hook_create_handler_factory, {0}, NULL},
  {"Poco::ErrorHandler::set", 0x1c8f9bc0UL,
   {0x41, 0x57, 0x41, 0x56, 0x53, 0x48, 0x83, 0xec, 0x10, 0x48}, (void *)hook_error_handler_set, {0}, NULL},
};
enum { HOOK_COUNT = sizeof hooks / sizeof hooks[0], FACTORY_HOOK = 3, ERROR_HANDLER_HOOK = 4 };
static const size_t expected_length[HOOK_COUNT] = {10, 10, 8, 10, 10};

static int make_writable(unsigned char *site) {
  long page = sysconf(_SC_PAGESIZE);
  uintptr_t start = (uintptr_t)site & ~(uintptr_t)(page - 1);
  return mprotect((void *)start, (size_t)(2 * page), PROT_READ | PROT_WRITE | PROT_EXEC);
}

static void write_jump(hook_t *hook) {
  unsigned char jump[HOOK_SIZE] = {0x48, 0xB8, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xE0};
  uint64_t target = (uint64_t)(uintptr_t)hook->replacement;
  memcpy(jump + 2, &target, sizeof target);
  memcpy(hook->site, jump, HOOK_SIZE);
  __builtin___clear_cache((char *)hook->site, (char *)hook->site + HOOK_SIZE);
}

static void restore_original(hook_t *hook) {
  memcpy(hook->site, hook->original, HOOK_SIZE);
  __builtin___clear_cache((char *)hook->site, (char *)hook->site + HOOK_SIZE);
}

static const char interserver_factory_name[] = "InterserverIOHTTPHandler-factory";
static int factory_calls;

/*
 * createHandlerFactory(IServer&, const Config&, AsyncMetrics&, const String& name, const String& key).
 * The 2nd HTTP listener is the one on the second <listen_host>: it gets the interserver handler.
 */
static shared_ptr_pair hook_create_handler_factory(void *server, const void *config, void *metrics,
                                                   const void *name, const void *key) {
  typedef shared_ptr_pair (*factory_fn)(void *, const void *, void *, const void *, const void *);
  hook_t *hook = &hooks[FACTORY_HOOK];
  struct { const char *data; uint64_t size; uint64_t cap; } long_name = {
    interserver_factory_name, sizeof interserver_factory_name - 1,
    (sizeof interserver_factory_name) | 0x8000000000000000ULL};
  factory_calls += 1;
  const void *effective_name = factory_calls == 2 ? (const void *)&long_name : name;
  restore_original(hook);
  shared_ptr_pair result = ((factory_fn)(void *)hook->site)(server, config, metrics, effective_name, key);
  write_jump(hook);
  return result;
}

static int install_hooks(void *library) {
  void *anchor = dlsym(library, ANCHOR_SYMBOL);
  if (anchor == NULL) {
    fprintf(stderr, "chdb-launcher: symbol %s not found in the library: not a chDB build\n", ANCHOR_SYMBOL);
    return EXIT_SYMBOL;
  }
  unsigned char *base = (unsigned char *)anchor - ANCHOR_OFFSET;
  for (int i = 0; i < HOOK_COUNT; i++) {
    hook_t *hook = &hooks[i];
    hook->site = base + hook->offset;
    /* Another build may not even map these addresses: look before reading. */
    Dl_info info;
    if (dladdr(hook->site, &info) == 0 || info.dli_fbase != (void *)base) {
      fprintf(stderr, "chdb-launcher: %s (offset 0x%lx) lies outside the library: this is not the libchdb.so build the launcher was written for\n",
              hook->name, (unsigned long)hook->offset);
      return EXIT_BYTES_MISMATCH;
    }
    if (memcmp(hook->site, hook->expected, expected_length[i]) != 0) {
      fprintf(stderr, "chdb-launcher: unexpected bytes at %s (offset 0x%lx): this is not the libchdb.so build the launcher was written for\n",
              hook->name, (unsigned long)hook->offset);
      return EXIT_BYTES_MISMATCH;
    }
  }
  const unsigned char *lea = hooks[ERROR_HANDLER_HOOK].site + ERROR_HANDLER_SLOT_LEA;
  static const unsigned char lea_rax[3] = {0x48, 0x8d, 0x05};
  if (memcmp(lea, lea_rax, sizeof lea_rax) != 0) {
    fprintf(stderr, "chdb-launcher: unexpected bytes in Poco::ErrorHandler::set: this is not the libchdb.so build the launcher was written for\n");
    return EXIT_BYTES_MISMATCH;
  }
  int32_t displacement;
  memcpy(&displacement, lea + 3, sizeof displacement);
  error_handler_slot = (void **)(lea + 7 + displacement);
  for (int i = 0; i < HOOK_COUNT; i++) {
    hook_t *hook = &hooks[i];
    if (make_writable(hook->site) != 0) {
      fprintf(stderr, "chdb-launcher: mprotect failed at %s: %s\n", hook->name, strerror(errno));
      return EXIT_MPROTECT;
    }
    memcpy(hook->original, hook->site, HOOK_SIZE);
    write_jump(hook);
  }
  return 0;
}

typedef void *(*query_cmdline_fn)(int, char **);
typedef const char *(*result_error_fn)(void *);

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: chdb-launcher LIBCHDB ADVERTISE_HOST ADVERTISE_PORT [clickhouse-local args...]\n");
    return EXIT_USAGE;
  }
  if (strlen(argv[2]) > 22) {
    fprintf(stderr, "chdb-launcher: advertised host '%s' is longer than 22 characters\n", argv[2]);
    return EXIT_USAGE;
  }
  char *end = NULL;
  long port = strtol(argv[3], &end, 10);
  if (*end != '\0' || port <= 0 || port > 65535) {
    fprintf(stderr, "chdb-launcher: advertised port '%s' is not a port number\n", argv[3]);
    return EXIT_USAGE;
  }
  strcpy(advertise_host, argv[2]);
  advertise_port = (uint16_t)port;

  /* A harness that dies must not leave servers behind: die with the parent when asked to. */
  if (getenv("CHDB_LAUNCHER_DIE_WITH_PARENT") != NULL) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() == 1) return EXIT_USAGE;
  }

  void *library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (library == NULL) {
    fprintf(stderr, "chdb-launcher: cannot load %s: %s\n", argv[1], dlerror());
    return EXIT_DLOPEN;
  }
  int status = install_hooks(library);
  if (status != 0) return status;

  query_cmdline_fn query_cmdline = (query_cmdline_fn)dlsym(library, "chdb_query_cmdline");
  result_error_fn result_error = (result_error_fn)dlsym(library, "chdb_result_error");
  if (query_cmdline == NULL || result_error == NULL) {
    fprintf(stderr, "chdb-launcher: chdb_query_cmdline or chdb_result_error missing from the library\n");
    return EXIT_SYMBOL;
  }
  char **engine_argv = calloc((size_t)argc - 2, sizeof *engine_argv);
  engine_argv[0] = "clickhouse";
  for (int i = 4; i < argc; i++) engine_argv[i - 3] = argv[i];
  void *result = query_cmdline(argc - 3, engine_argv);
  const char *error = result ? result_error(result) : "no result";
  if (error != NULL && error[0] != '\0') {
    fprintf(stderr, "chdb-launcher: the server query failed: %s\n", error);
    return EXIT_QUERY_FAILED;
  }
  return 0;
}
