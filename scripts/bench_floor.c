/* The floor of a small request: the same 1 KiB GET, HEAD or PUT exchanged over bare
 * loopback sockets with the target, no HTTP client, no signing, no recording, one
 * thread.
 *
 * What this process's CPU (user and system) comes to per request is what the exchange
 * itself costs on this machine: a client pays at least that. Two shapes, as
 * keystorm's table measures them:
 *
 *   closed METHOD HOST PORT PATH N CONC   N requests, CONC connections each keeping
 *                                         one in flight
 *   open METHOD HOST PORT PATH N RATE     N requests sent at RATE per second on a
 *                                         timerfd, each on the next of 64 connections
 *                                         (late while it is busy); between them the
 *                                         thread sleeps in epoll, as an open loop at
 *                                         a low rate must
 *
 * METHOD: GET or HEAD of the object PATH, or PUT of 1 KiB to PATH-0, PATH-1, ... (a
 * key of its own each, as a fill writes). A response other than 200 stops the run.
 *
 * Prints one JSON object: {"ops", "seconds", "user_us", "sys_us", "cpu_us"} (µs per
 * request) and "p50_us", the median latency: from the request's send time (open loop:
 * its scheduled time) to the kernel's receive timestamp of the response's first
 * segment, as keystorm takes it, so the thread's own wake-up is not in it; in open
 * loop, "lag_p50_us", how late the median request left. Built by
 * scripts/bench_floor.py with the machine's C compiler. */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <arpa/inet.h>
#include <time.h>
#include <unistd.h>

#define MAX_CONNS 1024
#define OPEN_CONNS 64

struct conn {
    int fd;
    int64_t sent_ns; /* when its request was sent, or scheduled to be (CLOCK_REALTIME) */
    size_t got;      /* bytes of the current response read so far */
    size_t want;     /* its whole length, once its head is in; 0 before */
    int busy;        /* a request is in flight */
};

#define PUT_BYTES 1024

enum method { GET, HEAD, PUT };

static enum method method;
static const char *path, *authority;
static long puts_made;
static char request[2048];
static size_t request_len;
static char buf[65536];

/* Times in whole µs, one count each, up to a second (the last slot counts all above). */
#define SLOTS 1000001
struct histogram {
    uint32_t count[SLOTS];
};
static struct histogram latency, lag;

static int64_t realtime_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void record(struct histogram *h, int64_t ns) {
    int64_t us = ns < 0 ? 0 : ns / 1000;
    h->count[us < SLOTS ? us : SLOTS - 1]++;
}

static long median(const struct histogram *h) {
    long n = 0, seen = 0;
    for (long us = 0; us < SLOTS; us++) n += h->count[us];
    for (long us = 0; us < SLOTS; us++)
        if ((seen += h->count[us]) * 2 >= n) return us;
    return SLOTS - 1;
}

static void die(const char *what) {
    perror(what);
    exit(2);
}

static int connect_to(const char *host, int port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) die("socket");
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
    if (inet_pton(AF_INET, host, &a.sin_addr) != 1) {
        fprintf(stderr, "floor: %s is not an IPv4 address\n", host);
        exit(2);
    }
    if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) die("connect");
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one) < 0) die("SO_TIMESTAMPNS");
    if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0) die("fcntl");
    return fd;
}

/* The request to send next: GET and HEAD always the same, a PUT to a key of its own. */
static void next_request(void) {
    if (method != PUT) {
        if (request_len == 0)
            request_len = (size_t)snprintf(request, sizeof request, "%s %s HTTP/1.1\r\nhost: %s\r\n\r\n",
                                           method == GET ? "GET" : "HEAD", path, authority);
        return;
    }
    int head = snprintf(request, sizeof request,
                        "PUT %s-%ld HTTP/1.1\r\nhost: %s\r\ncontent-length: %d\r\n\r\n", path,
                        puts_made++, authority, PUT_BYTES);
    if (head < 0 || (size_t)head + PUT_BYTES > sizeof request) {
        fprintf(stderr, "floor: the path is too long\n");
        exit(2);
    }
    /* The body is the same every time: written whole only where the head's length (its
     * key's digits) moved it; else just its first byte, where snprintf put its NUL. */
    if ((size_t)head + PUT_BYTES != request_len) memset(request + head, 'x', PUT_BYTES);
    else request[head] = 'x';
    request_len = (size_t)head + PUT_BYTES;
}

/* Sends the connection's request; `at`: its scheduled time, or 0 for now. */
static void send_request(struct conn *c, int64_t at) {
    next_request();
    int64_t now = realtime_ns();
    if (at) record(&lag, now - at);
    c->sent_ns = at ? at : now;
    size_t off = 0;
    while (off < request_len) {
        ssize_t k = send(c->fd, request + off, request_len - off, 0);
        if (k < 0) {
            if (errno == EAGAIN) continue; /* a full send buffer: cannot be, but wait it out */
            die("send");
        }
        off += (size_t)k;
    }
    c->busy = 1;
    c->got = 0;
    c->want = 0;
}

/* Reads what the connection has; returns 1 when its response is whole. */
static int read_response(struct conn *c) {
    for (;;) {
        char control[CMSG_SPACE(sizeof(struct timespec))];
        struct iovec iov = {.iov_base = buf, .iov_len = sizeof buf};
        struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                             .msg_controllen = sizeof control};
        ssize_t k = recvmsg(c->fd, &msg, 0);
        if (k < 0) {
            if (errno == EAGAIN) return 0;
            die("recv");
        }
        if (k == 0) {
            fprintf(stderr, "floor: the target closed a connection\n");
            exit(2);
        }
        if (c->want == 0) {
            /* The head arrives in the first read on loopback: a small response is
             * one segment. */
            buf[k < (ssize_t)sizeof buf ? k : k - 1] = 0;
            if (strncmp(buf, "HTTP/1.1 200 ", 13) != 0) {
                fprintf(stderr, "floor: the target answered %.*s\n", (int)strcspn(buf, "\r\n"), buf);
                exit(2);
            }
            char *end = strstr(buf, "\r\n\r\n");
            char *len = strcasestr(buf, "\r\ncontent-length:");
            if (!end || !len) {
                fprintf(stderr, "floor: a response head not in its first segment\n");
                exit(2);
            }
            /* A HEAD's length is the object's; no body follows. */
            c->want = (size_t)(end + 4 - buf) + (method == HEAD ? 0 : strtoul(len + 17, NULL, 10));
            struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
            if (!cm || cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_TIMESTAMPNS) {
                fprintf(stderr, "floor: no receive timestamp\n");
                exit(2);
            }
            struct timespec at;
            memcpy(&at, CMSG_DATA(cm), sizeof at);
            record(&latency, (int64_t)at.tv_sec * 1000000000 + at.tv_nsec - c->sent_ns);
        }
        c->got += (size_t)k;
        if (c->got >= c->want) {
            c->busy = 0;
            return 1;
        }
    }
}

static double seconds(const struct timeval *t) {
    return (double)t->tv_sec + (double)t->tv_usec / 1e6;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc != 8) {
        fprintf(stderr, "usage: %s closed|open GET|HEAD|PUT HOST PORT PATH N CONC|RATE\n", argv[0]);
        return 2;
    }
    int open_loop = strcmp(argv[1], "open") == 0;
    if (strcmp(argv[2], "GET") == 0) method = GET;
    else if (strcmp(argv[2], "HEAD") == 0) method = HEAD;
    else if (strcmp(argv[2], "PUT") == 0) method = PUT;
    else {
        fprintf(stderr, "floor: the method is GET, HEAD or PUT, not %s\n", argv[2]);
        return 2;
    }
    const char *host = argv[3];
    int port = atoi(argv[4]);
    path = argv[5];
    long n = atol(argv[6]);
    long shape = atol(argv[7]);
    int nconns = open_loop ? OPEN_CONNS : (int)shape;
    if (n <= 0 || shape <= 0 || nconns > MAX_CONNS) {
        fprintf(stderr, "floor: N and CONC|RATE must be positive, CONC at most %d\n", MAX_CONNS);
        return 2;
    }
    static char authority_text[300];
    snprintf(authority_text, sizeof authority_text, "%s:%d", host, port);
    authority = authority_text;

    int ep = epoll_create1(0);
    static struct conn conns[MAX_CONNS];
    for (int i = 0; i < nconns; i++) {
        conns[i].fd = connect_to(host, port);
        struct epoll_event ev = {.events = EPOLLIN, .data.u64 = (uint64_t)i};
        if (epoll_ctl(ep, EPOLL_CTL_ADD, conns[i].fd, &ev) < 0) die("epoll_ctl");
    }
    int timer = -1;
    if (open_loop) {
        timer = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
        if (timer < 0) die("timerfd_create");
        struct epoll_event ev = {.events = EPOLLIN, .data.u64 = UINT64_MAX};
        if (epoll_ctl(ep, EPOLL_CTL_ADD, timer, &ev) < 0) die("epoll_ctl");
    }

    struct rusage before, after;
    getrusage(RUSAGE_SELF, &before);
    double started = now();
    long sent = 0, done = 0, due = 0; /* due: sends fallen due, not yet made */
    int64_t first_ns = 0, period_ns = open_loop ? 1000000000L / shape : 0;
    if (open_loop) {
        first_ns = realtime_ns() + period_ns; /* the first expiry's, as the realtime clock reads */
        struct timespec period = {.tv_sec = period_ns / 1000000000L, .tv_nsec = period_ns % 1000000000L};
        struct itimerspec spec = {.it_interval = period, .it_value = period};
        if (timerfd_settime(timer, 0, &spec, NULL) < 0) die("timerfd_settime");
    } else {
        for (; sent < n && sent < nconns; sent++) send_request(&conns[sent], 0);
    }
    struct epoll_event events[64];
    while (done < n) {
        int k = epoll_wait(ep, events, 64, -1);
        if (k < 0) {
            if (errno == EINTR) continue;
            die("epoll_wait");
        }
        for (int e = 0; e < k; e++) {
            if (events[e].data.u64 == UINT64_MAX) {
                uint64_t expired;
                if (read(timer, &expired, sizeof expired) == sizeof expired) due += (long)expired;
                for (; due > 0 && sent < n && !conns[sent % nconns].busy; due--, sent++)
                    send_request(&conns[sent % nconns], first_ns + sent * period_ns);
                continue;
            }
            struct conn *c = &conns[events[e].data.u64];
            if (!c->busy || !read_response(c)) continue;
            done++;
            if (open_loop) {
                /* Sends that fell due while every connection was busy (the target
                 * behind): the one freed takes the next. */
                for (; due > 0 && sent < n && !conns[sent % nconns].busy; due--, sent++)
                    send_request(&conns[sent % nconns], first_ns + sent * period_ns);
            } else if (sent < n) {
                send_request(c, 0);
                sent++;
            }
        }
    }
    double wall = now() - started;
    getrusage(RUSAGE_SELF, &after);
    double user = (seconds(&after.ru_utime) - seconds(&before.ru_utime)) * 1e6 / (double)n;
    double sys = (seconds(&after.ru_stime) - seconds(&before.ru_stime)) * 1e6 / (double)n;
    printf("{\"ops\": %ld, \"seconds\": %.6f, \"user_us\": %.3f, \"sys_us\": %.3f, \"cpu_us\": %.3f, "
           "\"p50_us\": %ld, \"lag_p50_us\": %ld}\n",
           n, wall, user, sys, user + sys, median(&latency), open_loop ? median(&lag) : 0);
    return 0;
}
