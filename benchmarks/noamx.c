/* LD_PRELOAD shim: refuse the Linux AMX permission request (arch_prctl ARCH_REQ_XCOMP_PERM), so that libraries
   which ask before using AMX tiles (oneDNN, ONNX Runtime's MLAS) fall back to AVX-512 (VNNI, BF16) kernels. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <sys/syscall.h>
long syscall(long number, ...) {
    va_list ap; va_start(ap, number);
    long a[6]; for (int i = 0; i < 6; i++) a[i] = va_arg(ap, long);
    va_end(ap);
    if (number == SYS_arch_prctl && a[0] == 0x1023) { errno = EPERM; return -1; }
    static long (*real)(long, ...) = 0;
    if (!real) real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
    return real(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}
