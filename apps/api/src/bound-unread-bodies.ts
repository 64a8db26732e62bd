import type { FastifyInstance, FastifyRequest } from 'fastify';

/** How much of a body left unread by its answer is read and dropped, as a multiple of the largest body the server accepts. */
const DRAIN_BYTES_PER_BODY_LIMIT = 4;
/** How long the rest of such a body may take to arrive before the connection is closed. */
const DRAIN_TIMEOUT_MS = 30_000;

/**
 * A body refused for its size (413) is answered while the client is still sending it. Fastify then closes the
 * connection, and the kernel answers the bytes still arriving with a reset, which drops the answer from a client
 * that had not read it yet: a Python client sees a broken pipe instead of the 413 and its message (a loaded CI
 * machine saw it on five tries in a row). So the connection stays open and the rest of the body is read and
 * dropped, as Go's and nginx's servers do. Node does the same after any other answer given before the body was
 * read (a 401, a 404), but without bound: here every such body is bounded alike. One declared larger than
 * `DRAIN_BYTES_PER_BODY_LIMIT` times `maxBodyBytes` (the largest limit of any route) is not read (its connection
 * is closed after the answer), one that goes on past that or for `DRAIN_TIMEOUT_MS` is cut off.
 */
export function boundUnreadBodies(app: FastifyInstance, maxBodyBytes: number): void {
  const maxDrainBytes = DRAIN_BYTES_PER_BODY_LIMIT * maxBodyBytes;
  app.addHook('onSend', (request, reply, payload, done) => {
    if (!request.raw.complete) {
      if (!drain(request, maxDrainBytes)) reply.header('connection', 'close');
      else if (reply.statusCode === 413) reply.removeHeader('connection');
    }
    done(null, payload);
  });
}

/** Reads and drops what is left of `request`'s body; false when it is declared too large to be worth it. */
function drain(request: FastifyRequest, maxDrainBytes: number): boolean {
  if (Number(request.headers['content-length']) > maxDrainBytes) return false;
  const { raw } = request;
  const { socket } = raw;
  const cutOff = () => socket.destroy();
  const timer = setTimeout(cutOff, DRAIN_TIMEOUT_MS).unref();
  let drained = 0;
  raw.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > maxDrainBytes) cutOff();
  });
  // Once answered, the request no longer closes with its socket: a cut-off or a client gone must end the timer.
  const done = () => clearTimeout(timer);
  raw.once('end', done);
  socket.once('close', done);
  return true;
}
