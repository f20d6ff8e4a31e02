#ifndef BOOKS_CINOTIFYTOOLS_SHIM_H
#define BOOKS_CINOTIFYTOOLS_SHIM_H
// <sys/inotify.h> must come first: without it `struct inotify_event` is only forward-declared.
#include <sys/inotify.h>
#include <inotifytools/inotifytools.h>
#include <string.h>

/// The event's file name (the flexible array member Swift cannot import), or "" when it has none.
static inline const char *books_inotify_event_name(const struct inotify_event *event) {
    return event->len > 0 ? event->name : "";
}
#endif
