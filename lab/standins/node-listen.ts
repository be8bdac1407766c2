/** A node:http(s) server listening on `listen` (resolves once it does), with a stop that closes it and every connection. */
import type { Server } from "node:https";

/** Where a stand-in listens (host "::" or an address, port 0: any). */
export interface Listen {
  readonly host: string;
  readonly port: number;
}

export async function listenNode(server: Server, listen: Listen): Promise<{ port: number; stop(): Promise<void> }> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(listen.port, listen.host, () => resolve());
  });
  const address = server.address();
  return {
    port: typeof address === "object" && address ? address.port : 0,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
