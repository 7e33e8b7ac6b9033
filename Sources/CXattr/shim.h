// Extended attributes (getxattr), which Swift's Glibc module leaves out: lanchatd reads a
// configuration file's POSIX access list with it. Part of libc: nothing to link.
#ifndef LANCHAT_CXATTR_SHIM_H
#define LANCHAT_CXATTR_SHIM_H
#include <sys/types.h>
#include <sys/xattr.h>
#endif
