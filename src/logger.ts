/** The little the package needs of a logger; `console` and pino-style loggers both fit. */
export interface Logger {
  info(message: string, ...details: unknown[]): void;
  warn(message: string, ...details: unknown[]): void;
  error(message: string, ...details: unknown[]): void;
}

/** Writes to the console with a `[service-auth]` prefix. */
export const consoleLogger: Logger = {
  info: (message, ...details) => console.info(`[service-auth] ${message}`, ...details),
  warn: (message, ...details) => console.warn(`[service-auth] ${message}`, ...details),
  error: (message, ...details) => console.error(`[service-auth] ${message}`, ...details),
};
