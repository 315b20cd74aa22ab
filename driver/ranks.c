/* ranks.c — the coordination of the ranks under mpirun: only rank 0
 * speaks while every rank compiles the same plan (the others' standard
 * output to /dev/null, their standard error held back and shown only where
 * a rank failed alone), the agreement every rank reaches after a step that
 * may fail on some ranks only (ranks_agree, agree), the fingerprint of the
 * plan every rank must share, and the refusal of a build without MPI
 * started by mpirun.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver/driver.h"

/* Under mpirun every rank compiles the same plan and so would find the
 * same bad input: only rank 0 speaks. The other ranks write their standard
 * output to /dev/null and, until they agree that the compile went well
 * (agree), their standard error to a scratch file, which a rank shows only
 * when it failed where rank 0 did not. */
static struct {
    int saved_stderr;
    FILE *captured;
} quiet = {-1, NULL};

void hold_stderr(void)
{
    if (world_rank() == 0 || quiet.captured)
        return;
    fflush(stderr);
    if ((quiet.captured = tmpfile()) != NULL) {
        quiet.saved_stderr = dup(STDERR_FILENO);
        dup2(fileno(quiet.captured), STDERR_FILENO);
    }
}

void quiet_other_ranks(void)
{
    if (world_rank() == 0)
        return;
    fflush(stdout);
    int devnull = open("/dev/null", O_WRONLY);
    if (devnull >= 0) {
        dup2(devnull, STDOUT_FILENO);
        close(devnull);
    }
    hold_stderr();
}

void speak_again(bool show_captured)
{
    if (!quiet.captured)
        return;
    fflush(stderr);
    dup2(quiet.saved_stderr, STDERR_FILENO);
    close(quiet.saved_stderr);
    rewind(quiet.captured);
    char buf[4096];
    size_t n;
    while (show_captured && (n = fread(buf, 1, sizeof buf, quiet.captured)) > 0)
        fwrite(buf, 1, n, stderr);
    fclose(quiet.captured);
    quiet.captured = NULL;
}

/* Under mpirun, the end of a step that may fail on some ranks and not on
 * others (a file missing on one host, a compiler broken on one): every
 * rank calls it, whatever its step did, before any other collective call,
 * so that no rank waits in a call that a failed rank skipped. A failed
 * rank passes false after setting r->status (stop()). True when every
 * rank got through; else every rank takes the job's status (rank 0's when
 * it failed: it said why, once, for all; else the worst), a rank that
 * failed where rank 0 did not shows the messages it held back, and every
 * rank stops. */
bool ranks_agree(Run *r, bool ok)
{
    if (world_size() == 1)
        return ok;
    int mine = ok ? EXIT_OK : r->status != EXIT_OK ? r->status : EXIT_RUNTIME;
    int worst = world_max_int(mine);    /* first: it waits for the slowest rank without spinning */
    int root_status = world_share_int(mine, 0);
    if (worst == EXIT_OK)
        return true;
    speak_again(mine != EXIT_OK && root_status == EXIT_OK);
    r->status = root_status != EXIT_OK ? root_status : worst;
    return false;
}

/* Under mpirun: whether every rank compiled and goes on to run (the ranks
 * speak again from here on). When rank 0 stopped with an error, every rank
 * exits with its status (rank 0 said why, once); a rank that failed alone
 * shows its own message. */
bool agree(Run *r, bool go)
{
    if (world_size() == 1)
        return go;
    bool all_ok = ranks_agree(r, r->status == EXIT_OK);
    speak_again(false);
    int any_stopped = world_max_int(!go);
    return all_ok && !any_stopped;
}

/* What every rank must have planned alike to send and expect the same
 * messages: the actors (names, firings) and their ranks. Plans differ when
 * the ranks' files do (a --weights or --place file not the same on every
 * host). */
uint64_t plan_fingerprint(const Schedule *s)
{
    CacheKey key = cache_key_start();
    for (int a = 0; a < s->flat->nactors; a++) {
        const char *name = s->flat->actors[a].node->name ? s->flat->actors[a].node->name : "";
        int rank = s->actor_rank ? s->actor_rank[a] : 0;
        cache_key_add(&key, name, strlen(name));
        cache_key_add(&key, &s->repetitions[a], sizeof s->repetitions[a]);
        cache_key_add(&key, &rank, sizeof rank);
    }
    return (uint64_t)key ^ (uint64_t)(key >> 64);
}

/* A build without MPI started by mpirun would run the whole program in
 * every process, each writing the outputs: refused (by the first). */
bool mpi_missing(void)
{
    const char *size = getenv("OMPI_COMM_WORLD_SIZE");
    if (world_built_with_mpi() || !size || atoi(size) <= 1)
        return false;
    const char *rank = getenv("OMPI_COMM_WORLD_RANK");
    if (!rank || atoi(rank) == 0)
        fputs("tssa-stream: error: this tssa-stream was built without MPI, so it cannot run on several "
              "ranks (install libopenmpi-dev and rebuild: scripts/setup.sh, scripts/build.sh)\n", stderr);
    return true;
}
