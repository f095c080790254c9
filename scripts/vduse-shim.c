/*
 * LD_PRELOAD library for scripts/qemu-compat.sh: lets qemu-storage-daemon's vduse-blk
 * export run without the VDUSE kernel module.  It pretends that /dev/vduse/control
 * exists, prints the configuration space that libvduse asks the kernel to create
 * ("vduse-shim: config_size=N features=0x..."), and then refuses to create the device,
 * so the export fails right after that line.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/types.h>
#include <linux/vduse.h>

static int ctrl_fd = -1;

static int real_open(const char *path, int flags, mode_t mode)
{
	static int (*fn)(const char *, int, ...);

	if (!fn)
		fn = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
	if (strcmp(path, "/dev/vduse/control") == 0) {
		ctrl_fd = fn("/dev/null", O_RDWR);
		return ctrl_fd;
	}
	return fn(path, flags, mode);
}

int open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	if (flags & O_CREAT) {
		va_start(ap, flags);
		mode = va_arg(ap, int);
		va_end(ap);
	}
	return real_open(path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	if (flags & O_CREAT) {
		va_start(ap, flags);
		mode = va_arg(ap, int);
		va_end(ap);
	}
	return real_open(path, flags, mode);
}

int ioctl(int fd, unsigned long request, ...)
{
	static int (*fn)(int, unsigned long, ...);
	struct vduse_dev_config *config;
	void *arg;
	va_list ap;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (ctrl_fd < 0 || fd != ctrl_fd) {
		if (!fn)
			fn = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
		return fn(fd, request, arg);
	}
	if (request == VDUSE_SET_API_VERSION)
		return 0;
	if (request == VDUSE_CREATE_DEV) {
		config = arg;
		fprintf(stderr, "vduse-shim: config_size=%u features=0x%llx\n",
			config->config_size, (unsigned long long)config->features);
		errno = EPERM;
		return -1;
	}
	errno = ENOTTY;
	return -1;
}
