// SPDX-License-Identifier: GPL-2.0
/*
 * Load: several processes, each with several models, keep many jobs in
 * flight and verify every output, while a chaos process creates and
 * destroys models and closes its npa fd with jobs still queued.  Every
 * job must end DONE (workers) or with an explicit status (chaos); the QEMU
 * runner then checks for KASAN, lockdep and kmemleak reports.  Prints
 * jobs/s and the deepest queue seen.  usage: npa_load [JOBS_PER_WORKER]
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libnpa.h"
#include "tap.h"
#include "testgraph.h"

#define WORKERS		4
#define MODELS		3
#define DEPTH		16	/* jobs in flight per worker */

static void graph_init(int variant)
{
	graph_init_opts(variant & 1, false);
}

struct slot {
	int in, out, job;
	int8_t *x, *y;
};

/* One worker: MODELS models, DEPTH slots with their own buffers. */
static int worker(int id, long jobs, int pipe_fd)
{
	int fd = npa_open(NULL), models[MODELS], i, k, bad = 0, inflight = 0, most = 0;
	struct slot s[DEPTH];
	long submitted = 0, done = 0;

	for (i = 0; i < MODELS; i++) {
		graph_init(i);
		models[i] = npa_model_create(fd, &graph, i == 2 ? NPA_MODEL_PRIVATE_ARENA : 0,
					     0, NULL);
		if (models[i] <= 0)
			return 1;
	}
	for (k = 0; k < DEPTH; k++) {
		s[k].in = npa_buffer_create(fd, N);
		s[k].out = npa_buffer_create(fd, N);
		s[k].x = npa_buffer_map(s[k].in, 4096);
		s[k].y = npa_buffer_map(s[k].out, 4096);
		s[k].job = -1;
		if (!s[k].x || !s[k].y)
			return 1;
	}
	while (done < jobs) {
		for (k = 0; k < DEPTH; k++) {
			struct npa_binding b[2] = { { .fd = s[k].in }, { .fd = s[k].out } };
			struct npa_job_wait w;

			if (s[k].job >= 0) {
				struct pollfd p = { .fd = s[k].job, .events = POLLIN };

				if (poll(&p, 1, 0) != 1)
					continue;
				if (npa_job_wait(fd, s[k].job, 0, &w) || w.status != NPA_JOB_DONE)
					bad++;
				npa_buffer_sync(s[k].out, 1);
				for (i = 0; i < N; i++)
					bad += s[k].y[i] != graph_expect(s[k].x[i]);
				npa_buffer_sync(s[k].out, 0);
				close(s[k].job);
				s[k].job = -1;
				inflight--;
				done++;
			}
			if (submitted >= jobs)
				continue;
			npa_buffer_sync(s[k].in, 1);
			for (i = 0; i < N; i++)
				s[k].x[i] = (int8_t)(i * 31 + submitted * 7 + id);
			npa_buffer_sync(s[k].in, 0);
			s[k].job = npa_job_submit(fd, models[submitted % MODELS], b, 2, 0, NULL);
			if (s[k].job < 0) {
				bad++;
				continue;
			}
			submitted++;
			inflight++;
			most = inflight > most ? inflight : most;
		}
		usleep(200);
	}
	dprintf(pipe_fd, "%d %d\n", most, bad);
	close(fd);
	return bad ? 1 : 0;
}

/* Chaos: models come and go; the fd is closed with jobs queued. */
static int chaos(int rounds)
{
	int r, i, statuses = 0;

	for (r = 0; r < rounds; r++) {
		int fd = npa_open(NULL), m[4], in, out, jobs[8];
		struct npa_binding b[2];

		for (i = 0; i < 4; i++) {
			graph_init(i);
			m[i] = npa_model_create(fd, &graph, 0, 0, NULL);
		}
		in = npa_buffer_create(fd, N);
		out = npa_buffer_create(fd, N);
		b[0] = (struct npa_binding){ .fd = in };
		b[1] = (struct npa_binding){ .fd = out };
		for (i = 0; i < 8; i++)
			jobs[i] = npa_job_submit(fd, m[i % 4], b, 2, 0, NULL);
		/* Destroy models under running jobs, then close everything. */
		npa_model_destroy(fd, m[1]);
		npa_model_destroy(fd, m[3]);
		close(fd);
		for (i = 0; i < 8; i++) {
			struct pollfd p = { .fd = jobs[i], .events = POLLIN };

			if (jobs[i] < 0)
				continue;
			/* Ends DONE or ABORTED, but it ends. */
			statuses += poll(&p, 1, 20000) == 1;
			close(jobs[i]);
		}
		close(in);
		close(out);
	}
	return statuses == rounds * 8 ? 0 : 1;
}

int main(int argc, char **argv)
{
	long jobs = argc > 1 ? atol(argv[1]) : 1000;
	int p[2], i, st, ok = 0, most = 0, total_most = 0, bad = 0;
	__s64 t0 = npa_now_ns(), t1;
	FILE *f;

	if (pipe(p))
		return 1;
	for (i = 0; i < WORKERS; i++)
		if (fork() == 0)
			_exit(worker(i, jobs, p[1]));
	if (fork() == 0)
		_exit(chaos(20));
	close(p[1]);
	for (i = 0; i < WORKERS + 1; i++)
		if (wait(&st) > 0 && WIFEXITED(st) && !WEXITSTATUS(st))
			ok++;
	t1 = npa_now_ns();
	f = fdopen(p[0], "r");
	for (i = 0; f && i < WORKERS; i++) {
		int m, b;

		if (fscanf(f, "%d %d", &m, &b) == 2) {
			most = m > most ? m : most;
			total_most += m;
			bad += b;
		}
	}
	tap_ok(ok == WORKERS + 1 && !bad,
	       "load: %d processes x %d models, %ld verified jobs each, chaos process: all ended (%d ok, %d bad)",
	       WORKERS, MODELS, jobs, ok, bad);
	printf("# load: %ld jobs in %.2f s = %.0f jobs/s; deepest queue per process %d, sum of per-process peaks %d\n",
	       jobs * WORKERS, (t1 - t0) / 1e9, jobs * WORKERS / ((t1 - t0) / 1e9),
	       most, total_most);
	return tap_failed;
}
