/*
 * The benchmark's ceiling: the cheapest relay a user-space proxy can be on Linux. Every
 * accepted connection gets an upstream connection and one thread per direction moving bytes
 * with splice(2) through a pipe, never copying them into user space. It has no API and no
 * toxics; it exists only so that `npm run bench:toxiproxy` can show, in the same run, how much
 * of the gap to direct loopback any proxy hop costs on this machine.
 *
 * usage: splice-relay <upstream-port>   (listens on 127.0.0.1:0, prints the port, runs until killed)
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

enum { CHUNK = 1 << 20 };

struct connection {
  int client;
  int upstream;
  atomic_int directions_left;
};

struct direction {
  struct connection *connection;
  int from;
  int to;
};

static void release(struct connection *connection) {
  if (atomic_fetch_sub(&connection->directions_left, 1) != 1) return;
  close(connection->client);
  close(connection->upstream);
  free(connection);
}

static void *pump(void *argument) {
  struct direction *direction = argument;
  int through[2];
  if (pipe(through) == 0) {
    fcntl(through[0], F_SETPIPE_SZ, CHUNK);
    for (;;) {
      ssize_t in = splice(direction->from, NULL, through[1], NULL, CHUNK, SPLICE_F_MOVE);
      if (in <= 0) break;
      while (in > 0) {
        ssize_t out = splice(through[0], NULL, direction->to, NULL, (size_t)in, SPLICE_F_MOVE);
        if (out <= 0) goto done;
        in -= out;
      }
    }
  done:
    close(through[0]);
    close(through[1]);
  }
  shutdown(direction->to, SHUT_WR);
  release(direction->connection);
  free(direction);
  return NULL;
}

static struct sockaddr_in loopback(int port) {
  struct sockaddr_in address = {0};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons((unsigned short)port);
  return address;
}

static void start_direction(struct connection *connection, int from, int to) {
  struct direction *direction = malloc(sizeof *direction);
  pthread_t thread;
  direction->connection = connection;
  direction->from = from;
  direction->to = to;
  if (pthread_create(&thread, NULL, pump, direction) != 0) {
    perror("pthread_create");
    exit(1);
  }
  pthread_detach(thread);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: splice-relay <upstream-port>\n");
    return 64;
  }
  /* Never outlive the benchmark that started us, even if it is killed. */
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() == 1) return 1;
  int upstream_port = atoi(argv[1]);
  int listener = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in address = loopback(0);
  socklen_t length = sizeof address;
  if (bind(listener, (struct sockaddr *)&address, sizeof address) != 0 || listen(listener, 64) != 0 ||
      getsockname(listener, (struct sockaddr *)&address, &length) != 0) {
    perror("listen");
    return 1;
  }
  printf("%d\n", ntohs(address.sin_port));
  fflush(stdout);
  for (;;) {
    int client = accept(listener, NULL, NULL);
    if (client < 0) continue;
    int upstream = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in target = loopback(upstream_port);
    if (connect(upstream, (struct sockaddr *)&target, sizeof target) != 0) {
      close(client);
      close(upstream);
      continue;
    }
    int one = 1;
    setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(upstream, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct connection *connection = malloc(sizeof *connection);
    connection->client = client;
    connection->upstream = upstream;
    atomic_init(&connection->directions_left, 2);
    start_direction(connection, client, upstream);
    start_direction(connection, upstream, client);
  }
}
