/*
 * smtp-tls-source: the benches' SMTP submission load generator, smtp-source's counterpart for
 * authenticated mail. Postfix's smtp-source (the peers' generator) speaks plain SMTP and cannot
 * do STARTTLS or AUTH, which Postline requires for submission; a generator in JavaScript spends
 * 1-2 ms of the machine's two cores per connection on its own TLS and SMTP, which starves the
 * server measured. This one is C and OpenSSL, like smtp-source: SESSIONS threads, each opening
 * a connection (STARTTLS or implicit TLS, full handshake every time, no session resumption),
 * AUTH PLAIN, then PER_CONNECTION messages with MAIL / RCPT / DATA one command at a time (no
 * PIPELINING, as smtp-source), then QUIT. API_KEY `-` leaves AUTH out (Postfix with STARTTLS
 * and no SASL, bench/support/postfix-tls.sh).
 *
 *   smtp-tls-source PORT starttls|implicit API_KEY SESSIONS TOTAL PER_CONNECTION MESSAGES_FILE
 *
 * MESSAGES_FILE holds the messages, each as "FROM\nTO\nLENGTH\n" then LENGTH bytes, already
 * dot-stuffed with CRLF line ends (bench/support/smtp-client.ts dotStuffed()). Message i of
 * the run is message i % count of the file. Prints one JSON line: accepted, errors, seconds,
 * first_error, and step_ms: the average wait for each step's reply (open: connect to AUTH). Built by bench/smtp-submission.ts with `cc -O2 … -lssl -lcrypto -lpthread`.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

typedef struct {
  char *from, *to, *data;
  size_t length;
} message_t;

static int port, implicit_tls, per_connection;
static long total;
static const char *api_key;
static message_t *messages;
static int message_count;
static SSL_CTX *ctx;
static atomic_long next_index, accepted, errors;
/* Time spent waiting for each step's reply, summed over all sessions (ns), to show where a
   session's time goes: 0 open (connect, TLS, EHLO, AUTH), 1 MAIL, 2 RCPT, 3 DATA, 4 the message. */
enum { STEP_OPEN, STEP_MAIL, STEP_RCPT, STEP_DATA, STEP_MESSAGE, STEPS };
static atomic_llong step_ns[STEPS], step_count[STEPS];

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void count_step(int step, long long since) {
  atomic_fetch_add(&step_ns[step], now_ns() - since);
  atomic_fetch_add(&step_count[step], 1);
}
static char first_error[320];
static pthread_mutex_t error_lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct {
  int fd;
  SSL *ssl;
  char buffer[8192];
  size_t filled;
} conn_t;

static void fail(const char *what) {
  pthread_mutex_lock(&error_lock);
  if (!first_error[0]) snprintf(first_error, sizeof first_error, "%s", what);
  pthread_mutex_unlock(&error_lock);
  atomic_fetch_add(&errors, 1);
}

static int conn_write(conn_t *c, const char *data, size_t length) {
  while (length > 0) {
    ssize_t n = c->ssl ? SSL_write(c->ssl, data, (int)length) : write(c->fd, data, length);
    if (n <= 0) return -1;
    data += n;
    length -= (size_t)n;
  }
  return 0;
}

/* Reads one whole reply (its last line is "NNN " …); returns its code, or -1. */
static int read_reply(conn_t *c, char *last, size_t last_size) {
  for (;;) {
    size_t start = 0;
    for (size_t i = 0; i + 1 < c->filled; i++) {
      if (c->buffer[i] != '\r' || c->buffer[i + 1] != '\n') continue;
      int final = i - start >= 4 && c->buffer[start + 3] == ' ';
      if (i - start == 3) final = 1;
      if (final) {
        int code = atoi(c->buffer + start);
        if (last) snprintf(last, last_size, "%.*s", (int)(i - start), c->buffer + start);
        memmove(c->buffer, c->buffer + i + 2, c->filled - i - 2);
        c->filled -= i + 2;
        return code;
      }
      start = i + 2;
    }
    if (c->filled == sizeof c->buffer) return -1;
    ssize_t n = c->ssl ? SSL_read(c->ssl, c->buffer + c->filled, (int)(sizeof c->buffer - c->filled))
                       : read(c->fd, c->buffer + c->filled, sizeof c->buffer - c->filled);
    if (n <= 0) return -1;
    c->filled += (size_t)n;
  }
}

/* Sends a command line and expects `code`; on anything else records the reply as the error. */
static int command(conn_t *c, const char *line, int code) {
  char reply[256] = "";
  if (line) {
    char out[1024];
    int n = snprintf(out, sizeof out, "%s\r\n", line);
    if (conn_write(c, out, (size_t)n) < 0) return fail("write failed"), -1;
  }
  int got = read_reply(c, reply, sizeof reply);
  if (got != code) {
    char what[300];
    snprintf(what, sizeof what, "expected %d after %.20s, got: %s", code, line ? line : "connect", got < 0 ? "connection lost" : reply);
    fail(what);
    return -1;
  }
  return 0;
}

static int start_tls(conn_t *c) {
  c->ssl = SSL_new(ctx);
  SSL_set_fd(c->ssl, c->fd);
  if (SSL_connect(c->ssl) != 1) return fail("TLS handshake failed"), -1;
  return 0;
}

static int open_session(conn_t *c, const char *auth_line) {
  struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
  c->fd = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (connect(c->fd, (struct sockaddr *)&address, sizeof address) < 0) return fail("connect failed"), -1;
  if (implicit_tls && start_tls(c) < 0) return -1;
  if (command(c, NULL, 220) < 0 || command(c, "EHLO client.bench.invalid", 250) < 0) return -1;
  if (!implicit_tls) {
    if (command(c, "STARTTLS", 220) < 0 || start_tls(c) < 0 || command(c, "EHLO client.bench.invalid", 250) < 0) return -1;
  }
  return auth_line ? command(c, auth_line, 235) : 0;
}

static void close_session(conn_t *c) {
  if (c->ssl) {
    conn_write(c, "QUIT\r\n", 6);
    SSL_free(c->ssl);
  }
  if (c->fd >= 0) close(c->fd);
  c->ssl = NULL;
  c->fd = -1;
  c->filled = 0;
}

static int send_message(conn_t *c, const message_t *m) {
  char line[600];
  long long t = now_ns();
  snprintf(line, sizeof line, "MAIL FROM:<%s>", m->from);
  if (command(c, line, 250) < 0) return -1;
  count_step(STEP_MAIL, t), t = now_ns();
  snprintf(line, sizeof line, "RCPT TO:<%s>", m->to);
  if (command(c, line, 250) < 0) return -1;
  count_step(STEP_RCPT, t), t = now_ns();
  if (command(c, "DATA", 354) < 0) return -1;
  count_step(STEP_DATA, t), t = now_ns();
  if (conn_write(c, m->data, m->length) < 0) return fail("write failed"), -1;
  if (command(c, ".", 250) < 0) return -1;
  count_step(STEP_MESSAGE, t);
  return 0;
}

static void *session_loop(void *auth_line) {
  conn_t c = {.fd = -1};
  for (;;) {
    long i = atomic_fetch_add(&next_index, 1);
    if (i >= total) break;
    if (atomic_load(&errors) > 100) break;
    long long t = now_ns();
    if (open_session(&c, auth_line) < 0) {
      close_session(&c);
      continue; /* message i is lost: counted as an error */
    }
    count_step(STEP_OPEN, t);
    for (int k = 0; k < per_connection; k++) {
      if (k > 0 && (i = atomic_fetch_add(&next_index, 1)) >= total) break;
      if (send_message(&c, &messages[i % message_count]) < 0) break;
      atomic_fetch_add(&accepted, 1);
    }
    close_session(&c);
  }
  return NULL;
}

static void load_messages(const char *file) {
  FILE *f = fopen(file, "rb");
  if (!f) perror(file), exit(2);
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  rewind(f);
  char *all = malloc((size_t)size + 1);
  if (fread(all, 1, (size_t)size, f) != (size_t)size) perror(file), exit(2);
  fclose(f);
  all[size] = 0;
  char *at = all, *end = all + size;
  while (at < end) {
    messages = realloc(messages, sizeof *messages * (size_t)(message_count + 1));
    message_t *m = &messages[message_count++];
    m->from = at;
    at = strchr(at, '\n'), *at++ = 0;
    m->to = at;
    at = strchr(at, '\n'), *at++ = 0;
    m->length = strtoul(at, &at, 10);
    m->data = ++at;
    at += m->length;
  }
}

int main(int argc, char **argv) {
  if (argc != 8) {
    fprintf(stderr, "usage: %s PORT starttls|implicit API_KEY SESSIONS TOTAL PER_CONNECTION MESSAGES_FILE\n", argv[0]);
    return 2;
  }
  port = atoi(argv[1]);
  implicit_tls = strcmp(argv[2], "implicit") == 0;
  api_key = argv[3];
  int sessions = atoi(argv[4]);
  total = atol(argv[5]);
  per_connection = atoi(argv[6]);
  load_messages(argv[7]);

  ctx = SSL_CTX_new(TLS_client_method());
  SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL); /* the self-signed certificate */
  SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);

  /* AUTH PLAIN: base64 of "\0resend\0<key>" */
  size_t plain_length = strlen(api_key) + 8;
  unsigned char *plain = malloc(plain_length);
  memcpy(plain, "\0resend\0", 8);
  memcpy(plain + 8, api_key, plain_length - 8);
  char *auth_line = malloc(plain_length * 2 + 32);
  strcpy(auth_line, "AUTH PLAIN ");
  EVP_EncodeBlock((unsigned char *)auth_line + 11, plain, (int)plain_length);
  if (strcmp(api_key, "-") == 0) free(auth_line), auth_line = NULL;

  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  pthread_t *threads = calloc((size_t)sessions, sizeof *threads);
  for (int s = 0; s < sessions; s++) pthread_create(&threads[s], NULL, session_loop, auth_line);
  for (int s = 0; s < sessions; s++) pthread_join(threads[s], NULL);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;

  printf("{\"accepted\":%ld,\"errors\":%ld,\"seconds\":%.6f,\"first_error\":\"", atomic_load(&accepted), atomic_load(&errors), seconds);
  for (const char *p = first_error; *p; p++) {
    if (*p == '"' || *p == '\\') putchar('\\');
    if ((unsigned char)*p >= 0x20) putchar(*p);
  }
  printf("\",\"step_ms\":{");
  const char *names[STEPS] = {"open", "mail", "rcpt", "data", "message"};
  for (int s = 0; s < STEPS; s++) {
    long long count = atomic_load(&step_count[s]);
    printf("%s\"%s\":%.3f", s ? "," : "", names[s], count ? (double)atomic_load(&step_ns[s]) / (double)count / 1e6 : 0.0);
  }
  printf("}}\n");
  return 0;
}
