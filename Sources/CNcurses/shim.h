// ncursesw with its wide-character API (get_wch), for `lanchat chat`'s terminal mode.
#ifndef LANCHAT_CNCURSES_SHIM_H
#define LANCHAT_CNCURSES_SHIM_H
#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif
#include <locale.h>
#include <langinfo.h>
#include <stdio.h>
#include <wchar.h>
#include <ncursesw/curses.h>

// Globals Swift 6 refuses to read (shared mutable state); read once, on the screen's thread.
static inline WINDOW *lanchat_stdscr(void) { return stdscr; }
static inline FILE *lanchat_stdin(void) { return stdin; }
static inline FILE *lanchat_stdout(void) { return stdout; }

// Columns a code point takes on the terminal (-1: not printable), by LC_CTYPE.
static inline int lanchat_wcwidth(unsigned int scalar) { return wcwidth((wchar_t)scalar); }

// Whether LC_CTYPE's character set is UTF-8.
static inline int lanchat_codeset_is_utf8(void) {
    const char *codeset = nl_langinfo(CODESET);
    return codeset != NULL && codeset[0] == 'U' && codeset[1] == 'T' && codeset[2] == 'F'
        && codeset[3] == '-' && codeset[4] == '8' && codeset[5] == 0;
}
#endif
