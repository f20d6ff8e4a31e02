// fanout_floor.c — the kernel's floor for fan-out on this machine (docs/BENCHMARKS.md, "Fan-out:
// cold start and 10,000 subscribers"): N Unix stream socket pairs, one process sending one line
// to each (non-blocking send, as booksd does), a second process reading them all in one epoll
// loop (as the benchmark's load generator does). No daemon, no protocol: what is left is the
// kernel's work per send and per read, and how the two processes interact. Not part of the build
// or of CI. Build and run (N ≤ about 9,900 under a 20,000-descriptor limit):
//   gcc -O2 -o /tmp/fanout_floor Benchmarks/peers/fanout_floor.c
//   chrt -f 5 /tmp/fanout_floor N WORK_NS BURST SENDER_EPOLL
// WORK_NS: busy time per subscriber on the sending side (stands for the daemon's own work);
// BURST: 1 = that work between any two sends, k = the work of k subscribers, then k sends back to
// back; SENDER_EPOLL: 1 = the sending ends registered for EPOLLIN in an epoll set (as booksd's are).
// Prints, per round, when the last send returned and when the reader had the last line (ms after
// the first send), and the reader's CPU time.
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/wait.h>
static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}
static double cpu_ms(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_utime.tv_sec * 1e3 + ru.ru_utime.tv_usec / 1e3 + ru.ru_stime.tv_sec * 1e3 + ru.ru_stime.tv_usec / 1e3;
}
int main(int argc, char **argv) {
    if (argc < 5) { fprintf(stderr, "usage: fanout_floor N WORK_NS BURST SENDER_EPOLL\n"); return 2; }
    int n = atoi(argv[1]), burst = atoi(argv[3]), senderEpoll = atoi(argv[4]), rounds = 10;
    double work = atof(argv[2]) / 1e6;
    char line[250];
    memset(line, 'x', sizeof line);
    line[sizeof line - 1] = '\n';
    int *srv = malloc(n * sizeof(int)), *cli = malloc(n * sizeof(int)), start[2];
    for (int i = 0; i < n; i++) {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0) { perror("socketpair"); return 1; }
        srv[i] = sv[0], cli[i] = sv[1];
        fcntl(sv[0], F_SETFL, O_NONBLOCK);
    }
    if (pipe(start) < 0) return 1;
    if (fork() == 0) {  // the reader
        for (int i = 0; i < n; i++) close(srv[i]);
        int ep = epoll_create1(0);
        for (int i = 0; i < n; i++) {
            struct epoll_event e = {.events = EPOLLIN, .data.u32 = i};
            epoll_ctl(ep, EPOLL_CTL_ADD, cli[i], &e);
        }
        struct epoll_event events[1024];
        static char buf[65536];
        for (int r = 0; r < rounds; r++) {
            double t0, c0;
            if (read(start[0], &t0, sizeof t0) != sizeof t0) return 1;
            c0 = cpu_ms();
            for (int got = 0; got < n;) {
                int ready = epoll_wait(ep, events, 1024, -1);
                for (int j = 0; j < ready; j++)
                    if (read(cli[events[j].data.u32], buf, sizeof buf) > 0) got++;
            }
            printf("round %d: last read %.2f ms, reader CPU %.2f ms\n", r, now() - t0, cpu_ms() - c0);
            fflush(stdout);
        }
        return 0;
    }
    for (int i = 0; i < n; i++) close(cli[i]);
    if (senderEpoll) {
        int ep = epoll_create1(0);
        for (int i = 0; i < n; i++) {
            struct epoll_event e = {.events = EPOLLIN, .data.u32 = i};
            epoll_ctl(ep, EPOLL_CTL_ADD, srv[i], &e);
        }
    }
    for (int r = 0; r < rounds; r++) {
        usleep(200000);
        double t0 = now();
        if (write(start[1], &t0, sizeof t0) != sizeof t0) return 1;
        for (int i = 0; i < n; i += burst) {
            int end = i + burst < n ? i + burst : n;
            double s = now();
            while (now() - s < work * (end - i)) {}
            for (int j = i; j < end; j++) send(srv[j], line, sizeof line, MSG_DONTWAIT | MSG_NOSIGNAL);
        }
        printf("round %d: last send %.2f ms\n", r, now() - t0);
        fflush(stdout);
    }
    wait(NULL);
    return 0;
}
