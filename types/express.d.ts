// NOTE: `express` comes with @nestjs/platform-express and ships no types of its own, and the
// repository does not depend on @types/express (an app of your own installs it instead). This
// much of Express 5 is what the Express shop and the tests use.
declare module 'express' {
  import type { IncomingMessage, Server, ServerResponse } from 'node:http';

  function express(): express.Application;

  namespace express {
    interface Request extends IncomingMessage {
      body: unknown;
      params: Record<string, string>;
    }

    interface Response extends ServerResponse {
      status(code: number): this;
      json(body: unknown): this;
    }

    type NextFunction = (error?: unknown) => void;
    type RequestHandler = (request: Request, response: Response, next: NextFunction) => unknown;
    type ErrorRequestHandler = (
      error: unknown,
      request: Request,
      response: Response,
      next: NextFunction,
    ) => unknown;

    interface Router extends RequestHandler {
      use(...handlers: (RequestHandler | ErrorRequestHandler)[]): this;
      use(path: string, ...handlers: (RequestHandler | ErrorRequestHandler)[]): this;
      get(path: string, ...handlers: RequestHandler[]): this;
      post(path: string, ...handlers: RequestHandler[]): this;
    }

    interface Application extends Router {
      listen(port: number, host: string, callback?: (error?: Error) => void): Server;
      listen(port: number, callback?: (error?: Error) => void): Server;
    }

    /** A body parser: it takes any Node request, so it also fits handler types of Node's own. */
    type ParserHandler = (
      request: IncomingMessage,
      response: ServerResponse,
      next: NextFunction,
    ) => void;

    interface ParserOptions {
      type?: string | ((request: IncomingMessage) => boolean);
      limit?: string | number;
    }

    function json(options?: ParserOptions): ParserHandler;
    function raw(options?: ParserOptions): ParserHandler;
    function Router(): Router;
  }

  export = express;
}
