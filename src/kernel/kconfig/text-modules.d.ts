/** Kernel config fragments are imported as text (`with { type: "text" }`) and embedded by `bun build --compile`. */
declare module "*.config" {
  const text: string;
  export default text;
}
