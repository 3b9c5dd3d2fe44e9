/* cli_sweep_submit.c - `gpusim sweep submit MANIFEST --engine E`: hand the
 * runs not yet done to the engine a user has, in the form it takes.
 *
 *   slurm     one `sbatch --array` script (one task a line, one core each),
 *             the array listing only the lines not done; submitted with sbatch
 *   parallel  the GNU parallel command over shards (--shard K/N), printed, or
 *             run with --run; --sshloginfile spreads it over machines
 *   k8s       an Indexed Job manifest (JOB_COMPLETION_INDEX picks the line)
 *   local     N shard processes here, what `compare` does in one process
 *
 * Every engine ends in `gpusim sweep run`, which skips what is done, so a
 * second submission only redoes what is missing or failed. The other
 * machines must see the sweep directory, the traces and gpusim at the same
 * paths (a shared file system), as Slurm clusters usually arrange.
 * SPDX-License-Identifier: MIT */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "cli_sweep.h"
#include "../base/gs_file.h"

#define SW_MAX_EXTRA 16

typedef struct sub_opts {
    const char *engine, *partition, *time, *mem, *hosts, *image, *pvc, *mount;
    const char *extra[SW_MAX_EXTRA]; /* --sbatch-arg */
    int nextra;
    long max_parallel, shards, array_max;
    bool wait, dry_run, run;
} sub_opts;

static void submit_usage(FILE *out)
{
    fprintf(out,
            "usage: gpusim sweep submit MANIFEST --engine slurm|parallel|k8s|local [options]\n"
            "\n"
            "  --max-parallel K   at most K runs at once (slurm: array throttle %%K; parallel: --jobs K per\n"
            "                     machine; k8s: parallelism; local: processes, default the core count)\n"
            "slurm:    --partition P, --time T (sbatch syntax), --mem M (per run, e.g. 2G),\n"
            "          --sbatch-arg ARG (repeatable, passed to sbatch), --wait (until the array ends),\n"
            "          --array-max N (Slurm's MaxArraySize, default 1001), --dry-run (write, do not submit)\n"
            "parallel: --shards N (default 4 x K), --sshloginfile FILE, --run (run it; else print it)\n"
            "k8s:      --image IMAGE (default gpusim:latest), --pvc CLAIM (default gpusim-sweep),\n"
            "          --mount PATH (where the claim holds the sweep and traces; default the manifest's\n"
            "          directory), --mem M\n"
            "Only runs not done are submitted; 'gpusim sweep run' skips a run whose result exists.\n");
}

/* Single-quoted for sh: ' becomes '\''. */
static char *shq(const char *s)
{
    size_t n = 3;
    for (const char *p = s; *p; p++)
        n += *p == '\'' ? 4 : 1;
    char *o = xmalloc(n), *q = o;
    *q++ = '\'';
    for (const char *p = s; *p; p++) {
        if (*p == '\'')
            memcpy(q, "'\\''", 4), q += 4;
        else
            *q++ = *p;
    }
    *q++ = '\'';
    *q = 0;
    return o;
}

/* Runs argv (PATH lookup), stdout to *captured when non-NULL. Exit status. */
static int spawn_wait(char *const *argv, char **captured, gs_error *err)
{
    int fd[2] = {-1, -1};
    if (captured && pipe(fd) != 0)
        return gs_err(err, GS_EFAIL, "pipe: %s", strerror(errno));
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return gs_err(err, GS_EFAIL, "fork: %s", strerror(errno));
    if (pid == 0) {
        if (captured) {
            dup2(fd[1], 1);
            close(fd[0]), close(fd[1]);
        }
        execvp(argv[0], argv);
        fprintf(stderr, "gpusim: error: cannot run '%s': %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    if (captured) {
        close(fd[1]);
        size_t cap = 256, len = 0;
        char *buf = xmalloc(cap);
        ssize_t got;
        while ((got = read(fd[0], buf + len, cap - len - 1)) > 0 || (got < 0 && errno == EINTR)) {
            if (got > 0)
                len += (size_t)got;
            if (cap - len < 2)
                buf = xrealloc(buf, cap *= 2);
        }
        buf[len] = 0;
        close(fd[0]);
        *captured = buf;
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return gs_err(err, GS_EFAIL, "waitpid: %s", strerror(errno));
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int submit_slurm(const sw_manifest *m, const bool *todo, int ntodo, const char *exe, const char *man,
                        const sub_opts *o, gs_error *err)
{
    char sdir[1000], script[1100];
    snprintf(sdir, sizeof sdir, "%s/slurm", m->dir);
    snprintf(script, sizeof script, "%s/submit.sbatch", sdir);
    char absdir[PATH_MAX];
    if (!realpath(m->dir, absdir))
        return gs_err(err, GS_EINPUT, "cannot resolve '%s': %s", m->dir, strerror(errno));
    int last = 0;
    for (int i = 0; i < m->n; i++)
        if (todo[i])
            last = i;
    /* Array task ids must stay below MaxArraySize: past it, each task runs a
     * shard of the manifest instead of one line. */
    bool sharded = last >= o->array_max;
    char *list = NULL;
    long nshards = 0;
    if (sharded) {
        nshards = ntodo < o->array_max ? ntodo : o->array_max;
        list = cli_batch_fmt("0-%ld", nshards - 1);
    } else {
        list = sw_index_list(todo, m->n);
        if (strlen(list) > 900) { /* sbatch reads directives a line at a time: keep the line short; */
            int lo = 0;           /* the done lines in the range exit at once (sweep run skips them) */
            while (!todo[lo])
                lo++;
            free(list);
            list = cli_batch_fmt("%d-%d", lo, last);
        }
    }
    char *qexe = shq(exe), *qman = shq(man);
    char *text = cli_batch_fmt("#!/bin/sh\n"
                        "# Written by 'gpusim sweep submit --engine slurm': array task I runs %s of %s.\n"
                        "#SBATCH --job-name=gpusim-sweep\n"
                        "#SBATCH --array=%s%s%.0ld\n"
                        "#SBATCH --ntasks=1\n"
                        "#SBATCH --cpus-per-task=1\n"
                        "#SBATCH --output=%s/slurm/%%A_%%a.out\n",
                        sharded ? "the shard I+1 of the lines" : "line I", man, list,
                        o->max_parallel ? "%" : "", o->max_parallel, absdir);
    free(list);
    char *more;
    if (o->partition)
        more = cli_batch_fmt("%s#SBATCH --partition=%s\n", text, o->partition), free(text), text = more;
    if (o->time)
        more = cli_batch_fmt("%s#SBATCH --time=%s\n", text, o->time), free(text), text = more;
    if (o->mem)
        more = cli_batch_fmt("%s#SBATCH --mem=%s\n", text, o->mem), free(text), text = more;
    if (sharded)
        more = cli_batch_fmt("%sexec %s sweep run %s --shard \"$((SLURM_ARRAY_TASK_ID + 1))/%ld\"\n", text, qexe, qman,
                      nshards);
    else
        more = cli_batch_fmt("%sexec %s sweep run %s   # the line from $SLURM_ARRAY_TASK_ID\n", text, qexe, qman);
    free(text), text = more;
    free(qexe), free(qman);
    int rc = gs_mkdirs(sdir, err);
    if (rc == 0)
        rc = cli_batch_write_text(script, text, err);
    free(text);
    if (rc)
        return rc;
    if (o->dry_run) {
        printf("sweep: %d runs to do; wrote %s (submit it with: sbatch %s)\n", ntodo, script, script);
        return 0;
    }
    char *argv[8 + SW_MAX_EXTRA];
    int a = 0;
    argv[a++] = (char *)"sbatch";
    argv[a++] = (char *)"--parsable";
    if (o->wait)
        argv[a++] = (char *)"--wait";
    for (int i = 0; i < o->nextra; i++)
        argv[a++] = (char *)o->extra[i];
    argv[a++] = script;
    argv[a] = NULL;
    char *outp = NULL;
    printf("sweep: submitting %d runs: sbatch%s %s\n", ntodo, o->wait ? " --wait" : "", script);
    fflush(stdout);
    int st = spawn_wait(argv, &outp, err);
    if (st < 0) {
        free(outp);
        return st;
    }
    if (outp)
        outp[strcspn(outp, "\n;")] = 0;
    if (st != 0) {
        /* with --wait, a non-zero status also means some task failed */
        rc = gs_err(err, GS_EFAIL, "sbatch exited %d%s%s ('gpusim sweep status %s' lists failed runs)", st,
                    outp && outp[0] ? " for job " : "", outp ? outp : "", man);
    } else {
        printf("sweep: Slurm job %s%s\n", outp ? outp : "?", o->wait ? " finished" : " submitted");
    }
    free(outp);
    return rc;
}

static int submit_parallel(const sw_manifest *m, int ntodo, const char *exe, const char *man, const sub_opts *o,
                           gs_error *err)
{
    long k = o->max_parallel ? o->max_parallel : cli_batch_default_jobs();
    long n = o->shards ? o->shards : 4 * k;
    if (n > m->n)
        n = m->n;
    char jobs[32], shard[64];
    snprintf(jobs, sizeof jobs, "%ld", k);
    snprintf(shard, sizeof shard, "{}/%ld", n);
    int argc = 0;
    char **argv = xcalloc((size_t)n + 20, sizeof *argv);
    argv[argc++] = xstrdup("parallel");
    argv[argc++] = xstrdup("--jobs");
    argv[argc++] = xstrdup(jobs);
    argv[argc++] = xstrdup("--halt");
    argv[argc++] = xstrdup("never");
    if (o->hosts) {
        argv[argc++] = xstrdup("--sshloginfile");
        argv[argc++] = xstrdup(o->hosts);
    }
    argv[argc++] = xstrdup(exe);
    argv[argc++] = xstrdup("sweep");
    argv[argc++] = xstrdup("run");
    argv[argc++] = xstrdup(man);
    argv[argc++] = xstrdup("--shard");
    argv[argc++] = xstrdup(shard);
    argv[argc++] = xstrdup(":::");
    for (long i = 1; i <= n; i++)
        argv[argc++] = cli_batch_fmt("%ld", i);
    FILE *to = o->run ? stderr : stdout;
    fprintf(to, "%s", o->run ? "sweep: " : "");
    for (int i = 0; i < argc; i++) {
        char *q = strpbrk(argv[i], " '\"$`\\*?;&|<>()") ? shq(argv[i]) : xstrdup(argv[i]);
        fprintf(to, "%s%s", i ? " " : "", q);
        free(q);
    }
    fprintf(to, "\n");
    int rc = 0;
    if (o->run) {
        fprintf(stderr, "sweep: %d runs to do in %ld shards, %ld at once\n", ntodo, n, k);
        int st = spawn_wait(argv, NULL, err);
        if (st > 0)
            rc = gs_err(err, GS_EFAIL, "parallel exited %d ('gpusim sweep status %s' lists failed runs)", st, man);
        else
            rc = st;
    }
    for (int i = 0; i < argc; i++)
        free(argv[i]);
    free(argv);
    return rc;
}

/* YAML double-quoted scalar: JSON string escaping is valid YAML. */
static char *yq(const char *s)
{
    cJSON *j = cJSON_CreateString(s);
    char *t = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    return t;
}

static int submit_k8s(const sw_manifest *m, int ntodo, const char *exe, const char *man, const sub_opts *o,
                      gs_error *err)
{
    (void)exe;
    char absdir[PATH_MAX], kdir[1000], path[1100];
    if (!realpath(m->dir, absdir))
        return gs_err(err, GS_EINPUT, "cannot resolve '%s': %s", m->dir, strerror(errno));
    snprintf(kdir, sizeof kdir, "%s/k8s", m->dir);
    snprintf(path, sizeof path, "%s/job.yaml", kdir);
    long k = o->max_parallel ? o->max_parallel : 8;
    char *img = yq(o->image ? o->image : "gpusim:latest"), *qman = yq(man),
         *mnt = yq(o->mount ? o->mount : absdir), *pvc = yq(o->pvc ? o->pvc : "gpusim-sweep"),
         *mem = yq(o->mem ? o->mem : "1Gi");
    /* Every index runs: one already done exits at once (sweep run skips it). */
    char *text = cli_batch_fmt("# Written by 'gpusim sweep submit --engine k8s': pod I runs line I of the manifest\n"
                        "# (JOB_COMPLETION_INDEX). Start it with: kubectl create -f %s (generateName: a new Job each time)\n"
                        "apiVersion: batch/v1\n"
                        "kind: Job\n"
                        "metadata:\n"
                        "  generateName: gpusim-sweep-\n"
                        "spec:\n"
                        "  completionMode: Indexed\n"
                        "  completions: %d\n"
                        "  parallelism: %ld\n"
                        "  backoffLimit: %d\n"
                        "  template:\n"
                        "    spec:\n"
                        "      restartPolicy: Never\n"
                        "      containers:\n"
                        "        - name: gpusim\n"
                        "          image: %s\n"
                        "          command: [\"gpusim\", \"sweep\", \"run\", %s]\n"
                        "          resources:\n"
                        "            requests: {cpu: \"1\", memory: %s}\n"
                        "          volumeMounts:\n"
                        "            - {name: sweep, mountPath: %s}\n"
                        "      volumes:\n"
                        "        - name: sweep\n"
                        "          persistentVolumeClaim: {claimName: %s}\n",
                        path, m->n, k, m->n, img, qman, mem, mnt, pvc);
    free(img), free(qman), free(mnt), free(pvc), free(mem);
    int rc = gs_mkdirs(kdir, err);
    if (rc == 0)
        rc = cli_batch_write_text(path, text, err);
    free(text);
    if (rc == 0)
        printf("sweep: %d runs to do; wrote %s (kubectl create -f %s; the claim must hold the sweep directory and "
               "the traces at the paths in the manifest)\n",
               ntodo, path, path);
    return rc;
}

static int submit_local(const sw_manifest *m, int ntodo, const char *man, const sub_opts *o, gs_error *err)
{
    long k = o->max_parallel ? o->max_parallel : cli_batch_default_jobs();
    if (k > ntodo)
        k = ntodo;
    printf("sweep: %d runs to do, %ld at once\n", ntodo, k);
    fflush(NULL);
    pid_t *pids = xcalloc((size_t)k, sizeof *pids);
    int rc = 0;
    for (long s = 0; s < k; s++) {
        pids[s] = fork();
        if (pids[s] < 0) {
            rc = gs_err(err, GS_EFAIL, "fork: %s", strerror(errno));
            break;
        }
        if (pids[s] == 0) {
            char shard[64];
            snprintf(shard, sizeof shard, "%ld/%ld", s + 1, k);
            char *argv[] = {(char *)"gpusim", (char *)"sweep", (char *)"run", (char *)man, (char *)"--shard", shard,
                            NULL};
            execv("/proc/self/exe", argv);
            _exit(127);
        }
    }
    int failed = 0;
    for (long s = 0; s < k; s++) {
        int st;
        if (pids[s] <= 0)
            continue;
        while (waitpid(pids[s], &st, 0) < 0 && errno == EINTR)
            ;
        failed += !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    free(pids);
    (void)m;
    if (rc == 0 && failed)
        rc = gs_err(err, GS_EFAIL, "%d of %ld shards had failed runs ('gpusim sweep status %s' lists them)", failed, k,
                    man);
    return rc;
}

int sw_cmd_submit(int argc, char **argv)
{
    static const struct option opts[] = {
        {"engine", required_argument, 0, 'e'},    {"max-parallel", required_argument, 0, 'k'},
        {"partition", required_argument, 0, 'p'}, {"time", required_argument, 0, 't'},
        {"mem", required_argument, 0, 'm'},       {"sbatch-arg", required_argument, 0, 'a'},
        {"wait", no_argument, 0, 'w'},            {"dry-run", no_argument, 0, 'd'},
        {"array-max", required_argument, 0, 'A'}, {"shards", required_argument, 0, 'n'},
        {"sshloginfile", required_argument, 0, 'H'}, {"run", no_argument, 0, 'r'},
        {"image", required_argument, 0, 'i'},     {"pvc", required_argument, 0, 'c'},
        {"mount", required_argument, 0, 'M'},     {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    sub_opts o = {.array_max = 1001};
    gs_error err = {0};
    int ch;
    optind = 1;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        char *end;
        long v;
        switch (ch) {
        case 'e': o.engine = optarg; break;
        case 'k':
        case 'n':
        case 'A':
            v = strtol(optarg, &end, 10);
            if (*end || v < 1 || v > 1000000)
                return cli_fail(&(gs_error){GS_EUSAGE, "--max-parallel, --shards, --array-max: expected a positive "
                                                       "integer"});
            *(ch == 'k' ? &o.max_parallel : ch == 'n' ? &o.shards : &o.array_max) = v;
            break;
        case 'p': o.partition = optarg; break;
        case 't': o.time = optarg; break;
        case 'm': o.mem = optarg; break;
        case 'a':
            if (o.nextra == SW_MAX_EXTRA)
                return cli_fail(&(gs_error){GS_EUSAGE, "--sbatch-arg: too many"});
            o.extra[o.nextra++] = optarg;
            break;
        case 'w': o.wait = true; break;
        case 'd': o.dry_run = true; break;
        case 'H': o.hosts = optarg; break;
        case 'r': o.run = true; break;
        case 'i': o.image = optarg; break;
        case 'c': o.pvc = optarg; break;
        case 'M': o.mount = optarg; break;
        case 'h': submit_usage(stdout); return 0;
        default:
            gs_err(&err, GS_EUSAGE, "sweep submit: unknown or incomplete option '%s'", argv[optind - 1]);
            return cli_fail(&err);
        }
    }
    if (optind != argc - 1)
        return cli_fail(&(gs_error){GS_EUSAGE, "sweep submit: expected one MANIFEST"});
    if (!o.engine || (strcmp(o.engine, "slurm") && strcmp(o.engine, "parallel") && strcmp(o.engine, "k8s") &&
                      strcmp(o.engine, "local")))
        return cli_fail(&(gs_error){GS_EUSAGE, "sweep submit: --engine slurm, parallel, k8s or local is required"});
    sw_manifest m;
    if (sw_manifest_read(&m, argv[optind], &err))
        return cli_fail(&err);
    char exe[PATH_MAX], man[PATH_MAX];
    ssize_t l = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[l > 0 ? l : 0] = 0;
    if (!realpath(m.path, man))
        snprintf(man, sizeof man, "%s", m.path);
    bool *todo = xcalloc((size_t)m.n, sizeof *todo);
    int ntodo = 0, rc = 0;
    for (int i = 0; i < m.n; i++)
        if (sw_state_of(&m, i, NULL, 0) != SW_DONE)
            todo[i] = true, ntodo++;
    if (ntodo == 0)
        printf("sweep: all %d runs are done ('gpusim sweep collect %s')\n", m.n, m.path);
    else if (!strcmp(o.engine, "slurm"))
        rc = submit_slurm(&m, todo, ntodo, exe, man, &o, &err);
    else if (!strcmp(o.engine, "parallel"))
        rc = submit_parallel(&m, ntodo, exe, man, &o, &err);
    else if (!strcmp(o.engine, "k8s"))
        rc = submit_k8s(&m, ntodo, exe, man, &o, &err);
    else
        rc = submit_local(&m, ntodo, man, &o, &err);
    free(todo);
    sw_manifest_free(&m);
    return rc ? cli_fail(&err) : 0;
}
