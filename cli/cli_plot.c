/* cli_plot.c - the plot wing's figures: gnuplot run on one script per
 * figure (scripts/fig_*.gp) into PNG and SVG beside each result, checked
 * whole and inlined into the page as base64; data-file text for gnuplot.
 * Text from user input reaches gnuplot only as -c arguments and in data
 * files (see scripts/fig_common.gp).
 * SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../base/gs_cleanup.h"
#include "cli.h"
#include "cli_batch.h"
#include "cli_plot.h"

bool plot_exists(const char *dir, const char *name, char *path, size_t n)
{
    snprintf(path, n, "%s/%s", dir, name);
    return access(path, R_OK) == 0;
}

/* Data-file text, always in double quotes: gnuplot reads a line that starts
 * with '#' as a comment (a bar would vanish) and an unquoted '"' opens a
 * string across the tabs (the columns would shift); inside the quotes a
 * '"' is doubled, which gnuplot reads back as one. A tab or a line end
 * becomes a space. The text is data to gnuplot, never code. */
void plot_tsv_text(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, f);
    }
    fputc('"', f);
}

/* The image gnuplot wrote is whole: a PNG ends with its IEND chunk, an SVG
 * with its closing tag (what a full file system cuts off first). */
static bool image_whole(const char *path, const char *term)
{
    static const unsigned char iend[12] = {0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xAE, 0x42, 0x60, 0x82};
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    unsigned char tail[16] = {0};
    long want = !strcmp(term, "png") ? 12 : 16;
    bool ok = fseek(f, -want, SEEK_END) == 0 && fread(tail, 1, (size_t)want, f) == (size_t)want;
    fclose(f);
    if (!ok)
        return false;
    if (want == 12)
        return !memcmp(tail, iend, 12);
    return strstr((const char *)tail + 1, "</svg>") != NULL;
}

/* A figure script: where the binary's data lies (gs_exe_relative: beside
 * it, installed, or the source tree above build/test/), else as given
 * (relative to the working directory). */
static void script_path(char *buf, size_t n, const char *rel) { cli_shipped_path(buf, n, rel); }

/* A path as gnuplot may open it: gnuplot runs a file name that starts with
 * '|' (set output) or '<' (plot, load) as a shell command, so a relative
 * path is given as "./PATH", never as the bare name a result directory
 * called "|cmd" would be. */
static void gp_path(const char *p, char *buf, size_t n) { snprintf(buf, n, "%s%s", p[0] == '/' ? "" : "./", p); }

/* Runs gnuplot on scripts/<script> for one format. defs holds only numbers
 * formatted here; every text goes as a -c argument (ARG1..ARG9, string
 * values gnuplot never parses; see scripts/fig_common.gp), every path
 * through gp_path. */
static int gnuplot(const char *script, const char *defs, const char *in, const char *out, const char *term,
                   const char *title, const char *const *panels, gs_error *err)
{
    char sp0[1024], common0[1024], sp[1100], common[1100], gin[1400], gout[1400];
    script_path(sp0, sizeof sp0, script);
    script_path(common0, sizeof common0, "scripts/fig_common.gp");
    gp_path(sp0, sp, sizeof sp);
    gp_path(common0, common, sizeof common);
    gp_path(in, gin, sizeof gin);
    gp_path(out, gout, sizeof gout);
    const char *args[16] = {"gnuplot", "-e", defs, "-c", sp, common, gout, term, title, gin};
    int n = 10;
    for (int i = 0; panels && panels[i] && i < 4; i++)
        args[n++] = panels[i];
    args[n] = NULL;
    fflush(NULL);
    int slot;
    pid_t pid = gs_cleanup_fork(&slot);
    if (pid < 0)
        return gs_err(err, GS_EFAIL, "fork: cannot start gnuplot");
    if (pid == 0) {
        execvp("gnuplot", (char *const *)args);
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    gs_cleanup_remove_child(slot);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return gs_err(err, GS_EFAIL, "gnuplot %s failed (exit %d)%s", script, WIFEXITED(st) ? WEXITSTATUS(st) : -1,
                      WIFEXITED(st) && WEXITSTATUS(st) == 127 ? ": gnuplot not installed (apt-get install gnuplot-nox)"
                                                              : "");
    return 0;
}

/* Draws one image: gnuplot writes out.tmp.<pid> (removed on a signal), a
 * whole image is renamed to out; a missing, empty or cut image is GS_EWRITE
 * (the file system is full or the directory not writable), and out is left
 * as it was. */
static int draw(const char *script, const char *defs, const char *in, const char *out, const char *term,
                const char *title, const char *const *panels, gs_error *err)
{
    char tmp[1300];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", out, (long)getpid());
    int slot = gs_cleanup_add(tmp, false);
    int rc = gnuplot(script, defs, in, tmp, term, title, panels, err);
    if (rc == 0 && !image_whole(tmp, term))
        rc = gs_err(err, GS_EWRITE, "cannot write the image '%s' (gnuplot's output is missing or cut short: is the "
                    "file system full?)", out);
    if (rc == 0 && rename(tmp, out) != 0)
        rc = gs_err(err, GS_EWRITE, "cannot rename '%s' to '%s': %s", tmp, out, strerror(errno));
    if (rc)
        unlink(tmp);
    gs_cleanup_remove(slot);
    return rc;
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void h_png(html *h, const char *path, const char *alt)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    h_raw(h, "<figure><img alt=\"");
    h_esc(h, alt);
    h_raw(h, "\" src=\"data:image/png;base64,");
    unsigned char in[3];
    size_t n;
    while ((n = fread(in, 1, 3, f)) > 0) {
        char o[4];
        unsigned v = (unsigned)in[0] << 16 | (n > 1 ? (unsigned)in[1] << 8 : 0) | (n > 2 ? in[2] : 0);
        o[0] = b64[v >> 18 & 63];
        o[1] = b64[v >> 12 & 63];
        o[2] = n > 1 ? b64[v >> 6 & 63] : '=';
        o[3] = n > 2 ? b64[v & 63] : '=';
        h_put(h, o, 4);
        if (n < 3)
            break;
    }
    fclose(f);
    h_raw(h, "\"></figure>\n");
}

int plot_figure(plotter *pl, const char *dir, const char *name, const char *script, const char *defs,
                const char *in, const char *title, const char *const *panels)
{
    char out[1200];
    snprintf(out, sizeof out, "%s/%s.png", dir, name);
    int rc = draw(script, defs, in, out, "png", title, panels, pl->err);
    if (rc == 0 && pl->svg) {
        snprintf(out, sizeof out, "%s/%s.svg", dir, name);
        rc = draw(script, defs, in, out, "svg", title, panels, pl->err);
    }
    if (rc == 0) {
        snprintf(out, sizeof out, "%s/%s.png", dir, name);
        h_png(&pl->h, out, title);
        printf("figure: %s/%s.png%s\n", dir, name, pl->svg ? " (.svg)" : "");
        pl->figures++;
    }
    return rc;
}
