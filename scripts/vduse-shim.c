/*
 * LD_PRELOAD library for scripts/qemu-compat.sh: lets qemu-storage-daemon's vduse-blk
 * export run without the VDUSE kernel module.  It pretends that /dev/vduse/control
 * exists and prints the configuration space that libvduse asks the kernel to create
 * ("vduse-shim: config_size=N features=0x..."), then:
 *   - by default, refuses to create the device, so the export fails right after that line;
 *   - with VDUSE_SHIM_RUN=1, creates it: the device node is a pipe that never has a
 *     request, and the device's ioctls succeed.  The line above then ends with the last
 *     24 bytes of the configuration space ("tail=HEX"), each VDUSE_DEV_SET_CONFIG prints
 *     "vduse-shim: set_config offset=N length=N data=HEX" and each
 *     VDUSE_DEV_INJECT_CONFIG_IRQ "vduse-shim: config_irq".
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/types.h>
#include <unistd.h>
#include <linux/vduse.h>

static int ctrl_fd = -1;
/* the device nodes of the run mode, by file descriptor */
#define MAX_FDS 1024
static unsigned char dev_fds[MAX_FDS];
static unsigned long long dev_features;

static int run_mode(void)
{
	const char *v = getenv("VDUSE_SHIM_RUN");

	return v && strcmp(v, "1") == 0;
}

static void print_hex(const unsigned char *p, unsigned int len)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		fprintf(stderr, "%02x", p[i]);
}

static int real_open(const char *path, int flags, mode_t mode)
{
	static int (*fn)(const char *, int, ...);
	int p[2];

	if (!fn)
		fn = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
	if (strcmp(path, "/dev/vduse/control") == 0) {
		ctrl_fd = fn("/dev/null", O_RDWR);
		return ctrl_fd;
	}
	if (run_mode() && strncmp(path, "/dev/vduse/", 11) == 0) {
		/* the read end of a pipe nobody writes: never a request */
		if (pipe(p))
			return -1;
		if (p[0] < MAX_FDS)
			dev_fds[p[0]] = 1;
		return p[0];
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

static int dev_ioctl(unsigned long request, void *arg)
{
	struct vduse_config_data *data;

	switch (request) {
	case VDUSE_DEV_GET_FEATURES:
		*(unsigned long long *)arg = dev_features;
		return 0;
	case VDUSE_DEV_SET_CONFIG:
		data = arg;
		fprintf(stderr, "vduse-shim: set_config offset=%u length=%u data=",
			data->offset, data->length);
		print_hex(data->buffer, data->length);
		fputc('\n', stderr);
		return 0;
	case VDUSE_DEV_INJECT_CONFIG_IRQ:
		fprintf(stderr, "vduse-shim: config_irq\n");
		return 0;
	case VDUSE_VQ_GET_INFO:
		/* a queue the driver has not set up yet */
		memset((char *)arg + sizeof(__u32), 0,
		       sizeof(struct vduse_vq_info) - sizeof(__u32));
		return 0;
	default:
		return 0;
	}
}

int ioctl(int fd, unsigned long request, ...)
{
	static int (*fn)(int, unsigned long, ...);
	struct vduse_dev_config *config;
	unsigned int tail;
	void *arg;
	va_list ap;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (fd >= 0 && fd < MAX_FDS && dev_fds[fd])
		return dev_ioctl(request, arg);
	if (ctrl_fd < 0 || fd != ctrl_fd) {
		if (!fn)
			fn = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
		return fn(fd, request, arg);
	}
	if (request == VDUSE_SET_API_VERSION)
		return 0;
	if (request == VDUSE_CREATE_DEV) {
		config = arg;
		fprintf(stderr, "vduse-shim: config_size=%u features=0x%llx",
			config->config_size, (unsigned long long)config->features);
		if (!run_mode()) {
			fputc('\n', stderr);
			errno = EPERM;
			return -1;
		}
		tail = config->config_size < 24 ? config->config_size : 24;
		fprintf(stderr, " tail=");
		print_hex(config->config + config->config_size - tail, tail);
		fputc('\n', stderr);
		/* libvduse opens the device node and reads the features next */
		dev_features = config->features;
		return 0;
	}
	if (request == VDUSE_DESTROY_DEV)
		return 0;
	errno = ENOTTY;
	return -1;
}
