/* reaper.c — see reaper.h. */
#define _GNU_SOURCE /* prctl's options as macros, kill */
#include "base/reaper.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* The parent named by /proc/PID/stat ("PID (COMM) STATE PPID ..."; COMM may
 * hold spaces and parentheses, so the last ')' ends it), or -1. */
static pid_t parent_of(long pid)
{
    char path[64], stat[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1; /* gone meanwhile */
    ssize_t n = read(fd, stat, sizeof stat - 1);
    close(fd);
    if (n <= 0)
        return -1;
    stat[n] = '\0';
    const char *end = strrchr(stat, ')');
    char state;
    int parent;
    return end && sscanf(end + 1, " %c %d", &state, &parent) == 2 ? (pid_t)parent : -1;
}

/* Sends SIGKILL to every child of this process; *found says how many there
 * were, the result how many could be killed. O(processes on the machine). */
static size_t kill_children(size_t *found)
{
    pid_t self = getpid();
    size_t killed = 0;
    *found = 0;
    DIR *proc = opendir("/proc");
    for (struct dirent *e; proc && (e = readdir(proc));) {
        char *end;
        long pid = strtol(e->d_name, &end, 10); /* /proc's other entries are not numbers */
        if (*end != '\0' || pid <= 0 || parent_of(pid) != self)
            continue;
        ++*found;
        killed += kill((pid_t)pid, SIGKILL) == 0;
    }
    if (proc)
        closedir(proc);
    return killed;
}

/* Kills and reaps every process left among our children, round after
 * round, since each one killed hands its own children to us. Stops when
 * none is left, or when what is left may not be killed by us. */
static void kill_descendants(void)
{
    for (;;) {
        size_t found, killed = kill_children(&found);
        if (killed > 0)
            waitpid(-1, NULL, 0); /* one of them dies: SIGKILL cannot be caught */
        pid_t reaped;
        while ((reaped = waitpid(-1, NULL, WNOHANG)) > 0)
            continue;
        if (reaped < 0 || (found > 0 && killed == 0))
            return; /* no child left (ECHILD), or only ones we may not kill */
    }
}

/* Ends this process as a wait status says the command ended. */
static void exit_as(int status)
{
    if (!WIFSIGNALED(status))
        _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 127);
    int sig = WTERMSIG(status);
    prctl(PR_SET_DUMPABLE, 0); /* the command may have dumped core; the reaper does not */
    signal(sig, SIG_DFL);
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, sig);
    sigprocmask(SIG_UNBLOCK, &one, NULL);
    raise(sig);
    _exit(128 + sig); /* a signal whose default action is not to end a process */
}

void reaper_run(void (*start)(const void *arg), const void *arg)
{
    /* Held from now on, and taken with sigwaitinfo: the command's end, and
     * the requests to stop (the caller's deadline; the caller going away). */
    sigset_t waited, saved;
    sigemptyset(&waited);
    sigaddset(&waited, SIGCHLD);
    sigaddset(&waited, SIGTERM);
    sigaddset(&waited, SIGINT);
    sigaddset(&waited, SIGHUP);
    sigprocmask(SIG_BLOCK, &waited, &saved);
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0 || prctl(PR_SET_PDEATHSIG, SIGTERM) != 0) {
        fprintf(stderr, "cannot become a subreaper: %s\n", strerror(errno));
        _exit(126);
    }
    pid_t command = fork();
    if (command < 0) {
        fprintf(stderr, "cannot start the command: fork: %s\n", strerror(errno));
        _exit(126);
    }
    if (command == 0) { /* fork cleared the parent-death signal and the subreaper mark */
        setpgid(0, 0);
        sigprocmask(SIG_SETMASK, &saved, NULL);
        start(arg);
        _exit(127);
    }
    setpgid(command, command); /* also here, so that no kill below can come first */
    int status = 0;
    for (bool ended = false; !ended;) {
        int sig = sigwaitinfo(&waited, NULL);
        if (sig == SIGCHLD) { /* the command, or an orphan we adopted, ended */
            int st;
            for (pid_t pid; (pid = waitpid(-1, &st, WNOHANG)) > 0;)
                if (pid == command) {
                    status = st;
                    ended = true;
                }
        } else if (sig > 0) { /* asked to stop */
            kill(command, SIGKILL);
            while (waitpid(command, &status, 0) < 0 && errno == EINTR)
                continue;
            ended = true;
        }
    }
    kill_descendants();
    exit_as(status);
}
