'use strict';
/**
 * `node:http` reading each request's body and answering 200, with no check and no storage:
 * what this machine's HTTP stack answers per second with nothing else to do.
 *
 * Environment: PORT.
 */
const http = require('node:http');

http
  .createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      Buffer.concat(chunks);
      response.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': 0 });
      response.end();
    });
  })
  .listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
