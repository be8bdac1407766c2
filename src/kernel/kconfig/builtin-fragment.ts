/**
 * The fragment embedded in the binary, so `metal-hammer kconfig check` needs no file
 * next to it. The text is kernel-config/metal-hammer.config as of the build.
 */
import text from "../../../kernel-config/metal-hammer.config" with { type: "text" };

export const BUILTIN_FRAGMENT_SOURCE = "kernel-config/metal-hammer.config";
export const BUILTIN_FRAGMENT_TEXT: string = text;
