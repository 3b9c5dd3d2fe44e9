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
#include "../base/gs_cleanup.h"
#include "../base/gs_file.h"
#include "../base/gs_quote.h"

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

/* Runs argv (PATH lookup), stdout to *captured when non-NULL. Exit status. */
static int spawn_wait(char *const *argv, char **captured, gs_error *err)
{
    int fd[2] = {-1, -1};
    if (captured && pipe(fd) != 0)
        return gs_err(err, GS_EFAIL, "pipe: %s", strerror(errno));
    fflush(NULL);
    int slot;
    pid_t pid = gs_cleanup_fork(&slot);
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
        if (errno != EINTR) {
            gs_cleanup_remove_child(slot);
            return gs_err(err, GS_EFAIL, "waitpid: %s", strerror(errno));
        }
    gs_cleanup_remove_child(slot);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The #SBATCH values a user types: sbatch reads a directive a line at a
 * time and has no quoting that holds a newline, so each is checked against
 * the characters its syntax uses (sbatch(1): --partition names, --time
 * "days-hours:minutes:seconds" or a word such as UNLIMITED, --mem a size
 * with a unit suffix). 0 or GS_EUSAGE naming the option. */
static int slurm_check_opts(const sub_opts *o, gs_error *err)
{
    static const struct {
        const char *name, *extra, *what;
    } chk[] = {{"--partition", "_.,-", "letters, digits, '_', '.', '-' and ','"},
               {"--time", ":-", "digits, letters, ':' and '-' (e.g. 2:00:00 or 1-12)"},
               {"--mem", "", "digits and a unit letter (e.g. 2G or 500M)"}};
    const char *v[] = {o->partition, o->time, o->mem};
    for (int i = 0; i < 3; i++)
        if (v[i] && !gs_text_vetted(v[i], chk[i].extra))
            return gs_err(err, GS_EUSAGE, "sweep submit: %s: expected %s, found '%s'", chk[i].name, chk[i].what,
                          v[i]);
    return 0;
}

/* sbatch's --output pattern for the task logs under absdir: '%' doubled
 * (sbatch(1), "filename pattern": %% is a '%'); a backslash, which turns
 * every replacement off, is refused. NULL with err set. */
static char *slurm_output_pattern(const char *absdir, gs_error *err)
{
    if (strchr(absdir, '\\')) {
        gs_err(err, GS_EUSAGE, "sweep submit --engine slurm: the sweep directory '%s' holds a backslash, which "
               "sbatch's --output pattern cannot carry; move the sweep", absdir);
        return NULL;
    }
    size_t n = strlen(absdir), k = 0;
    char *o = xmalloc(2 * n + 32);
    for (size_t i = 0; i < n; i++) {
        if (absdir[i] == '%')
            o[k++] = '%';
        o[k++] = absdir[i];
    }
    memcpy(o + k, "/slurm/%A_%a.out", sizeof "/slurm/%A_%a.out");
    return o;
}

/* The array script. No text a user chose goes into a comment or an
 * #SBATCH line unchecked: the manifest's name is said only when it is a
 * plain word, the output pattern only when the directory is one (else it
 * goes to sbatch as an argument, outpat), the partition, time and memory
 * are vetted (slurm_check_opts); the command line quotes its paths for
 * sh, and sbatch reads no directive after it. */
static char *slurm_script(const sw_manifest *m, const bool *todo, int ntodo, const char *exe, const char *man,
                          const char *absdir, const char *outpat, const sub_opts *o)
{
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
    bool plain_man = gs_text_vetted(man, "_./:=@+,-"), plain_dir = gs_text_vetted(absdir, "_./:=@+,-");
    char *text = cli_batch_fmt("#!/bin/sh\n"
                        "# Written by 'gpusim sweep submit --engine slurm': array task I runs %s of %s.\n"
                        "#SBATCH --job-name=gpusim-sweep\n"
                        "#SBATCH --array=%s%s%.0ld\n"
                        "#SBATCH --ntasks=1\n"
                        "#SBATCH --cpus-per-task=1\n"
                        "%s%s%s",
                        sharded ? "the shard I+1 of the lines" : "line I", plain_man ? man : "the manifest below",
                        list, o->max_parallel ? "%" : "", o->max_parallel, plain_dir ? "#SBATCH --output=" : "",
                        plain_dir ? outpat : "", plain_dir ? "\n" : "");
    free(list);
    const char *names[] = {"partition", "time", "mem"}, *vals[] = {o->partition, o->time, o->mem};
    char *more;
    for (int i = 0; i < 3; i++)
        if (vals[i])
            more = cli_batch_fmt("%s#SBATCH --%s=%s\n", text, names[i], vals[i]), free(text), text = more;
    char *qexe = gs_sh_quote(exe), *qman = gs_sh_quote(man);
    if (sharded)
        more = cli_batch_fmt("%sexec %s sweep run %s --shard \"$((SLURM_ARRAY_TASK_ID + 1))/%ld\"\n", text, qexe, qman,
                      nshards);
    else
        more = cli_batch_fmt("%sexec %s sweep run %s   # the line from $SLURM_ARRAY_TASK_ID\n", text, qexe, qman);
    free(text);
    free(qexe), free(qman);
    return more;
}

static int slurm_sbatch(const char *script, const char *outarg, int ntodo, const char *man, const sub_opts *o,
                        gs_error *err);

static int submit_slurm(const sw_manifest *m, const bool *todo, int ntodo, const char *exe, const char *man,
                        const sub_opts *o, gs_error *err)
{
    char absdir[PATH_MAX];
    if (!realpath(m->dir, absdir))
        return gs_err(err, GS_EINPUT, "cannot resolve '%s': %s", m->dir, strerror(errno));
    char *outpat = slurm_output_pattern(absdir, err);
    if (!outpat)
        return err->code;
    char *sdir = cli_batch_fmt("%s/slurm", m->dir), *script = cli_batch_fmt("%s/submit.sbatch", sdir);
    char *text = slurm_script(m, todo, ntodo, exe, man, absdir, outpat, o);
    int rc = gs_mkdirs(sdir, err);
    if (rc == 0)
        rc = cli_batch_write_text(script, text, err);
    free(text);
    char *outarg = cli_batch_fmt("--output=%s", outpat);
    free(outpat);
    if (rc == 0 && o->dry_run) {
        char *qo = gs_sh_word(outarg), *qs = gs_sh_word(script);
        printf("sweep: %d runs to do; wrote %s (submit it with: sbatch %s %s)\n", ntodo, script, qo, qs);
        free(qo), free(qs);
    } else if (rc == 0) {
        rc = slurm_sbatch(script, outarg, ntodo, man, o, err);
    }
    free(outarg), free(sdir), free(script);
    return rc;
}

/* Submits script with sbatch (its task logs to outarg's pattern). */
static int slurm_sbatch(const char *script, const char *outarg, int ntodo, const char *man, const sub_opts *o,
                        gs_error *err)
{
    int rc = 0;
    char *argv[8 + SW_MAX_EXTRA];
    int a = 0;
    argv[a++] = (char *)"sbatch";
    argv[a++] = (char *)"--parsable";
    argv[a++] = (char *)outarg;
    if (o->wait)
        argv[a++] = (char *)"--wait";
    for (int i = 0; i < o->nextra; i++)
        argv[a++] = (char *)o->extra[i];
    argv[a++] = (char *)script;
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

/* Writes the NUL-separated records of one GNU parallel input source to
 * DIR/parallel/NAME. */
static int write_source(const char *pdir, const char *name, const char *recs, size_t n, gs_error *err)
{
    char *path = cli_batch_fmt("%s/%s", pdir, name);
    int rc = gs_write_atomic(path, recs, n, err);
    free(path);
    return rc;
}

/* GNU parallel over shards. No path reaches parallel's command template:
 * gpusim, the manifest and each shard K/N are NUL-separated records of
 * three input sources (DIR/parallel/{exe,manifest,shards}), whose every
 * combination is one job, and the command is the fixed `{1} sweep run {2}
 * --shard {3}` under --quote. A path given in the template would be split
 * by the shell parallel starts, and a `{=...=}` in it is Perl parallel
 * evaluates; a replacement value is always quoted. The printed command
 * quotes each word for sh (gs_sh_word), so pasting it is as safe. */
static int submit_parallel(const sw_manifest *m, int ntodo, const char *exe, const char *man, const sub_opts *o,
                           gs_error *err)
{
    long k = o->max_parallel ? o->max_parallel : cli_batch_default_jobs();
    long n = o->shards ? o->shards : 4 * k;
    if (n > m->n)
        n = m->n;
    char absdir[PATH_MAX];
    if (!realpath(m->dir, absdir))
        return gs_err(err, GS_EINPUT, "cannot resolve '%s': %s", m->dir, strerror(errno));
    char *pdir = cli_batch_fmt("%s/parallel", absdir);
    int rc = gs_mkdirs(pdir, err);
    if (rc == 0)
        rc = write_source(pdir, "exe", exe, strlen(exe) + 1, err);
    if (rc == 0)
        rc = write_source(pdir, "manifest", man, strlen(man) + 1, err);
    if (rc == 0) {
        size_t cap = (size_t)n * 48, len = 0;
        char *recs = xmalloc(cap);
        for (long i = 1; i <= n; i++)
            len += (size_t)snprintf(recs + len, cap - len, "%ld/%ld", i, n) + 1; /* with its NUL */
        rc = write_source(pdir, "shards", recs, len, err);
        free(recs);
    }
    if (rc) {
        free(pdir);
        return rc;
    }
    char jobs[32];
    snprintf(jobs, sizeof jobs, "%ld", k);
    int argc = 0;
    char *argv[32];
    argv[argc++] = xstrdup("parallel");
    argv[argc++] = xstrdup("--jobs");
    argv[argc++] = xstrdup(jobs);
    argv[argc++] = xstrdup("--halt");
    argv[argc++] = xstrdup("never");
    if (o->hosts) {
        argv[argc++] = xstrdup("--sshloginfile");
        argv[argc++] = xstrdup(o->hosts);
    }
    argv[argc++] = xstrdup("--null");
    argv[argc++] = xstrdup("--quote");
    static const char *const sources[] = {"exe", "manifest", "shards"};
    for (int i = 0; i < 3; i++) {
        argv[argc++] = xstrdup("-a");
        argv[argc++] = cli_batch_fmt("%s/%s", pdir, sources[i]);
    }
    static const char *const cmd[] = {"{1}", "sweep", "run", "{2}", "--shard", "{3}"};
    for (int i = 0; i < 6; i++)
        argv[argc++] = xstrdup(cmd[i]);
    argv[argc] = NULL;
    free(pdir);
    FILE *to = o->run ? stderr : stdout;
    fprintf(to, "%s", o->run ? "sweep: " : "");
    for (int i = 0; i < argc; i++) {
        char *q = gs_sh_word(argv[i]);
        fprintf(to, "%s%s", i ? " " : "", q);
        free(q);
    }
    fprintf(to, "\n");
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
    return rc;
}

static int submit_k8s(const sw_manifest *m, int ntodo, const char *exe, const char *man, const sub_opts *o,
                      gs_error *err)
{
    (void)exe;
    char absdir[PATH_MAX];
    if (!realpath(m->dir, absdir))
        return gs_err(err, GS_EINPUT, "cannot resolve '%s': %s", m->dir, strerror(errno));
    char *kdir = cli_batch_fmt("%s/k8s", m->dir), *path = cli_batch_fmt("%s/job.yaml", kdir);
    /* the comment names the file only as a plain word: a newline in it would end the comment */
    char *shown = gs_text_vetted(path, "_./:=@+,-") ? xstrdup(path) : xstrdup("this file");
    long k = o->max_parallel ? o->max_parallel : 8;
    char *img = gs_yaml_str(o->image ? o->image : "gpusim:latest"), *qman = gs_yaml_str(man),
         *mnt = gs_yaml_str(o->mount ? o->mount : absdir), *pvc = gs_yaml_str(o->pvc ? o->pvc : "gpusim-sweep"),
         *mem = gs_yaml_str(o->mem ? o->mem : "1Gi");
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
                        shown, m->n, k, m->n, img, qman, mem, mnt, pvc);
    free(shown);
    free(img), free(qman), free(mnt), free(pvc), free(mem);
    int rc = gs_mkdirs(kdir, err);
    if (rc == 0)
        rc = cli_batch_write_text(path, text, err);
    free(text);
    if (rc == 0)
        printf("sweep: %d runs to do; wrote %s (kubectl create -f %s; the claim must hold the sweep directory and "
               "the traces at the paths in the manifest)\n",
               ntodo, path, path);
    free(kdir), free(path);
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
    int *slots = xcalloc((size_t)k, sizeof *slots);
    int rc = 0;
    for (long s = 0; s < k; s++) {
        pids[s] = gs_cleanup_fork(&slots[s]); /* a SIGINT or SIGTERM here stops the shards too */
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
        gs_cleanup_remove_child(slots[s]);
        failed += !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    free(pids);
    free(slots);
    (void)m;
    if (rc == 0 && failed)
        rc = gs_err(err, GS_EFAIL, "%d of %ld shards had failed runs ('gpusim sweep status %s' lists them)", failed, k,
                    man);
    return rc;
}

/* sweep submit's options into *o: 1, 0 when --help was printed, or -1
 * with *err. */
static int submit_options(int argc, char **argv, sub_opts *o, gs_error *err)
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
    int ch;
    optind = 1;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        char *end;
        long v;
        switch (ch) {
        case 'e': o->engine = optarg; break;
        case 'k':
        case 'n':
        case 'A':
            v = cli_strtol(optarg, &end);
            if (*end || v < 1 || v > 1000000)
                return gs_err(err, GS_EUSAGE, "--max-parallel, --shards, --array-max: expected a positive integer"), -1;
            *(ch == 'k' ? &o->max_parallel : ch == 'n' ? &o->shards : &o->array_max) = v;
            break;
        case 'p': o->partition = optarg; break;
        case 't': o->time = optarg; break;
        case 'm': o->mem = optarg; break;
        case 'a':
            if (o->nextra == SW_MAX_EXTRA)
                return gs_err(err, GS_EUSAGE, "--sbatch-arg: too many"), -1;
            o->extra[o->nextra++] = optarg;
            break;
        case 'w': o->wait = true; break;
        case 'd': o->dry_run = true; break;
        case 'H': o->hosts = optarg; break;
        case 'r': o->run = true; break;
        case 'i': o->image = optarg; break;
        case 'c': o->pvc = optarg; break;
        case 'M': o->mount = optarg; break;
        case 'h': submit_usage(stdout); return 0;
        default:
            return gs_err(err, GS_EUSAGE, "sweep submit: unknown or incomplete option '%s'", argv[optind - 1]), -1;
        }
    }
    if (optind != argc - 1)
        return gs_err(err, GS_EUSAGE, "sweep submit: expected one MANIFEST"), -1;
    if (!o->engine || (strcmp(o->engine, "slurm") && strcmp(o->engine, "parallel") && strcmp(o->engine, "k8s") &&
                       strcmp(o->engine, "local")))
        return gs_err(err, GS_EUSAGE, "sweep submit: --engine slurm, parallel, k8s or local is required"), -1;
    /* checked whatever the engine: a bad value is a bad value */
    return slurm_check_opts(o, err) ? -1 : 1;
}

/* The runs of m not done handed to o->engine (a message when none is
 * left). */
static int submit_todo(const sw_manifest *m, const sub_opts *o, gs_error *err)
{
    char exe[PATH_MAX], man[PATH_MAX];
    ssize_t l = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[l > 0 ? l : 0] = 0;
    if (!realpath(m->path, man))
        snprintf(man, sizeof man, "%s", m->path);
    bool *todo = xcalloc((size_t)m->n, sizeof *todo);
    int ntodo = 0, rc = 0;
    for (int i = 0; i < m->n; i++)
        if (sw_state_of(m, i, NULL, 0) != SW_DONE)
            todo[i] = true, ntodo++;
    if (ntodo == 0)
        printf("sweep: all %d runs are done ('gpusim sweep collect %s')\n", m->n, m->path);
    else if (!strcmp(o->engine, "slurm"))
        rc = submit_slurm(m, todo, ntodo, exe, man, o, err);
    else if (!strcmp(o->engine, "parallel"))
        rc = submit_parallel(m, ntodo, exe, man, o, err);
    else if (!strcmp(o->engine, "k8s"))
        rc = submit_k8s(m, ntodo, exe, man, o, err);
    else
        rc = submit_local(m, ntodo, man, o, err);
    free(todo);
    return rc;
}

int sw_cmd_submit(int argc, char **argv)
{
    sub_opts o = {.array_max = 1001};
    gs_error err = {0};
    int rc = submit_options(argc, argv, &o, &err);
    if (rc <= 0)
        return rc == 0 ? 0 : cli_fail(&err);
    sw_manifest m;
    if (sw_manifest_read(&m, argv[optind], &err))
        return cli_fail(&err);
    rc = submit_todo(&m, &o, &err);
    sw_manifest_free(&m);
    return rc ? cli_fail(&err) : 0;
}
