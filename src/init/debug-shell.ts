/**
 * The debug shell's command line. The session leader is a wrapper around the interactive
 * shell, not the shell itself: when a session leader whose controlling tty is a serial line
 * exits, the kernel hangs that tty up and drops whatever the UART has not sent yet (Linux
 * drivers/tty/tty_jobctrl.c disassociate_ctty -> tty_vhangup_session; serial_core's
 * uart_flush_buffer), so the last command's output was cut off when the operator typed
 * `exit` (up to 4 KiB, the UART's transmit buffer). The wrapper first re-applies the line's
 * own settings: busybox stty sets them with TCSADRAIN (mirror/busybox@043b1e5
 * coreutils/stty.c, "tcsetattr(STDIN_FILENO, TCSADRAIN"), which returns once the output
 * is sent. Bounded: a line stopped by XOFF must not hold the reboot. SIGTTOU is ignored
 * because the interactive shell may leave its own process group in the foreground.
 */
export const DRAIN_BOUND_S = 10;

/** argv for PID 1: a new session (setsid) whose controlling tty is the real console (cttyhack), so job control and ^C work. */
export function debugShellArgv(busybox: string): string[] {
  const script = [`${busybox} sh`, "rc=$?", "trap '' TTOU", `${busybox} timeout ${DRAIN_BOUND_S} ${busybox} stty "$(${busybox} stty -g)" 2>/dev/null`, 'exit "$rc"'].join("; ");
  return [busybox, "setsid", busybox, "cttyhack", busybox, "sh", "-c", script];
}
