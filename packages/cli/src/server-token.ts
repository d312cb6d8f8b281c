/**
 * The variable that holds a jobs server's token. Its own module so that commands can name it without importing the
 * remote client (which loads @skillrig/server and its dependencies: fastify, bullmq, SQLite), only when --server is used.
 */
export const SERVER_TOKEN_ENV = "SKILLRIG_SERVER_TOKEN";
