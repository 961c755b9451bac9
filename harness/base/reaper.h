/*
 * reaper.h — run a command so that nothing it starts outlives it.
 *
 * A command may leave processes behind when it ends: `sleeper &` in a
 * shell script, or a daemon that forks twice and calls setsid(), leaving
 * the process group and the session the command was started in. Killing
 * the command's process group misses the daemon; its parent gone, it is
 * re-parented to init and runs on, unseen.
 *
 * Linux keeps such orphans findable: a process marked as a child
 * subreaper (prctl PR_SET_CHILD_SUBREAPER) becomes the parent of every
 * orphan among its descendants, instead of init. So the reaper is a small
 * process between us and the command:
 *
 *   1. it marks itself a subreaper and forks the command, in a process
 *      group of the command's own (so that a command which signals its
 *      group, as `kill 0` in a script's cleanup does, does not hit the
 *      reaper);
 *   2. it waits until the command ends, or until it is asked to stop
 *      (SIGTERM, SIGINT or SIGHUP: the caller's deadline, or the caller
 *      going away — the reaper gets SIGTERM when its parent dies);
 *   3. it kills every process left among its children with SIGKILL and
 *      reaps it — the command itself when asked to stop, every orphan
 *      that was re-parented to it — and looks again, until it has no child
 *      left: each process killed hands its own children to the reaper;
 *   4. it ends as the command ended (the same exit status, or the same
 *      signal, with no core file of its own), so the caller's wait
 *      status and peak RSS (wait4 counts what the reaper reaped) read
 *      as the command's.
 *
 * Children are found from /proc (each /proc/PID/stat names its parent),
 * which every Linux has. What it cannot catch: a process that escapes
 * through a service outside this tree (systemd-run, at, cron, ssh to this
 * machine), and one it may not kill (a set-user-ID program); and since the
 * command runs as the same user, a command set on escaping can kill the
 * reaper itself first (docs/security.md).
 *
 * Costs: one fork; after the command, one scan of /proc per round of
 * killing (a few milliseconds; one round unless processes were left).
 */
#ifndef BPE_REAPER_H
#define BPE_REAPER_H

/*
 * Becomes the reaper for start(arg), which runs in a child and must not
 * return (it sets up and execs the command; if it returns, the child exits
 * with 127). Call in a process of its own that has nothing else to wait
 * for; it keeps every descriptor it has (so a pipe held open by the reaper
 * reaches end of file only once everything is gone). Never returns.
 */
void reaper_run(void (*start)(const void *arg), const void *arg);

#endif
