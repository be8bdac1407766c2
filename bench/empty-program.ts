// The floor for bench/startup.ts: what the runtime costs before any of our code runs.
// It ignores its arguments, so every case of the bench runs it alike.
console.log("empty-program");
