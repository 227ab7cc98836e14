// NOTE: `express` comes with @nestjs/platform-express and ships no types of its own; the tests
// use this much of it, to mount the plain router in a real Express app.
declare module 'express' {
  import { IncomingMessage, Server, ServerResponse } from 'node:http';

  type Handler = (
    request: IncomingMessage,
    response: ServerResponse,
    next: (error?: unknown) => void,
  ) => void;
  type ErrorHandler = (
    error: unknown,
    request: IncomingMessage,
    response: ServerResponse,
    next: (error?: unknown) => void,
  ) => void;

  interface Application {
    use(...handlers: (Handler | ErrorHandler)[]): Application;
    use(path: string, ...handlers: (Handler | ErrorHandler)[]): Application;
    get(path: string, ...handlers: Handler[]): Application;
    post(path: string, ...handlers: Handler[]): Application;
    listen(port: number, host: string, callback: () => void): Server;
  }

  interface ParserOptions {
    type?: string | ((request: IncomingMessage) => boolean);
    limit?: string | number;
  }

  interface Express {
    (): Application;
    json(options?: ParserOptions): Handler;
    raw(options?: ParserOptions): Handler;
  }

  const express: Express;
  export = express;
}
