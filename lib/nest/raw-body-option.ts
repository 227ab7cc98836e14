import { ModuleRef } from '@nestjs/core';

/** What the app's options say about `rawBody`, as far as they can be read. */
interface ContainerWithOptions {
  readonly container?: { readonly contextOptions?: { readonly rawBody?: unknown } | null };
}

/**
 * Whether the app was created with `rawBody: true`: true or false when the options given to
 * `NestFactory.create()` can be read, undefined when they cannot.
 */
export function appKeepsRawBody(moduleRef: ModuleRef): boolean | undefined {
  // NOTE: Nest keeps those options on its container and offers no public getter; they are only
  // read here, to tell "rawBody: true is missing" from "another parser ate the body", which look
  // the same on the request. A container without options (a testing module, an older Nest)
  // cannot tell, and the message then names both causes.
  const options = (moduleRef as unknown as ContainerWithOptions).container?.contextOptions;
  if (options === undefined || options === null) {
    return undefined;
  }
  return options.rawBody === true;
}
