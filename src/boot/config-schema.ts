/**
 * What metal-boot answers on GET /config/<uuid> (docs/metal-boot.md). Validated by
 * zod; an answer that does not fit is a bad_answer naming the field.
 */
import { z } from "zod";
import ipaddr from "ipaddr.js";

const httpUrl = z
  .string()
  .refine((s) => URL.canParse(s) && /^https?:$/.test(new URL(s).protocol), { message: "expected an http(s) URL" })
  .transform((s) => new URL(s));

const pem = z.string().refine((s) => /-----BEGIN CERTIFICATE-----[\s\S]+-----END CERTIFICATE-----/.test(s), { message: "expected a PEM certificate (-----BEGIN CERTIFICATE-----)" });

const ntpServer = z.string().refine((s) => ipaddr.isValid(s) || /^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/i.test(s), { message: "expected an IP address or host name" });

export const BootConfigSchema = z.object({
  partition: z.string().min(1, "expected a partition id"),
  apiserverUrl: httpUrl,
  token: z.string().min(16, "expected a machine token (at least 16 characters)"),
  ca: pem.optional(),
  ntpServers: z.array(ntpServer).default([]),
  imageCacheUrl: httpUrl,
  imagePath: z
    .string()
    .regex(/^[A-Za-z0-9._/-]+$/, "expected a relative path like debian/12/img.tar.lz4")
    .refine((s) => !s.startsWith("/") && !s.split("/").includes(".."), { message: "expected a relative path without .." })
    .optional(),
  logging: z
    .object({
      level: z.enum(["trace", "debug", "info", "warn", "error"]).optional(),
      endpoint: httpUrl.optional(),
    })
    .default({}),
});

export type BootConfig = z.output<typeof BootConfigSchema>;
