/* wl_jlist.h - a Kubernetes List (`kubectl get pods -A -o json`) read one
 * item at a time, so that a snapshot of gigabytes is read in the memory of
 * its largest object.
 *
 * The file is one JSON object whose "items" member is an array of objects
 * (Kubernetes API conventions, "Lists and Simple kinds"). The top level is
 * scanned byte by byte: the members other than "items" are cut out and
 * checked whole ("kind" and "apiVersion" kept), and each element of "items"
 * is cut out and parsed alone (gs_json_parse_cut: the same syntax checks,
 * duplicate keys and limits as every JSON file, positions in the file's
 * lines and columns). Memory is O(largest item); time O(file).
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_WL_JLIST_H
#define GPUSIM_WL_JLIST_H

#include <cJSON.h>

#include "../base/gs.h"

/* An item larger than this is refused (a Pod object is a few KiB). */
#define WL_JLIST_MAX_ITEM (64u << 20)

typedef struct wl_jlist wl_jlist;

/* Opens path; what names the file in messages ("pod list"). NULL with err
 * set (GS_EINPUT) when it cannot be opened. */
wl_jlist *wl_jlist_open(const char *path, const char *what, gs_error *err);
/* The next element of "items": 1 with *item set (the caller deletes it), 0
 * after the last (the whole file then checked: one object, nothing after
 * it, an "items" array seen), or GS_EINPUT naming file, line and column.
 * An element that is not an object is an error. */
int wl_jlist_next(wl_jlist *l, cJSON **item, gs_error *err);
/* The top-level "kind" ("" until read: kubectl prints it after "items"). */
const char *wl_jlist_kind(const wl_jlist *l);
/* After the last item: GS_EINPUT unless the List's kind is absent, "List"
 * or item_kind + "List" (a NodeList for Nodes), naming what it is. */
int wl_jlist_expect_kind(const wl_jlist *l, const char *item_kind, gs_error *err);
/* Items returned so far; the current one is items[count - 1]. */
long wl_jlist_count(const wl_jlist *l);
const char *wl_jlist_path(const wl_jlist *l);
/* Line and column in the file of the value reached from the current item
 * by path (object keys, "#N" for array element N; gs_json_locate), or of
 * the item itself when the path is not there. */
void wl_jlist_where(const wl_jlist *l, const char *const *path, int n, int *line, int *col);
/* GS_EINPUT "WHAT 'FILE' line L, column C: items[N] (LABEL): a.b[0].c: MSG"
 * for the value at path in the current item; label may be NULL. */
int wl_jlist_fail(const wl_jlist *l, gs_error *err, const char *label, const char *const *path, int n,
                  const char *fmt, ...) __attribute__((format(printf, 6, 7)));
void wl_jlist_close(wl_jlist *l);

#endif
