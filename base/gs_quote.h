/* gs_quote.h - text handed to another program's parser (a shell, sbatch,
 * GNU parallel, YAML), always as data: the one quoting helper every engine
 * of `sweep submit` and `plan --engine` uses, so that no file name, label or
 * option value ever becomes a command.
 *
 *   shell   single quotes ('it'\''s'): nothing inside is special to sh,
 *           a newline included; gs_sh_word leaves a plain word unquoted
 *   YAML    a double-quoted scalar with JSON escapes (valid YAML 1.2),
 *           control characters as \uXXXX
 *   vetted  a value checked against a character set instead (an #SBATCH
 *           directive, which sbatch reads a line at a time, has no quoting
 *           that holds a newline)
 * Each returned string is malloc'd; free() it.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_GS_QUOTE_H
#define GPUSIM_GS_QUOTE_H

#include <stdbool.h>

/* s in single quotes for sh. O(length). */
char *gs_sh_quote(const char *s);
/* s unquoted when it is non-empty and every byte is in [A-Za-z0-9_./:=@%+,-]
 * (a word no shell treats specially), else gs_sh_quote(s). */
char *gs_sh_word(const char *s);
/* s as a YAML double-quoted scalar. */
char *gs_yaml_str(const char *s);
/* s is non-empty and every byte is an ASCII letter, a digit or one of
 * extra. */
bool gs_text_vetted(const char *s, const char *extra);
/* s holds a byte below 0x20 or 0x7F (a newline, a CR, a tab, an escape). */
bool gs_text_has_control(const char *s);

#endif
