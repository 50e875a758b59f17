// Preloaded with `node --import ./loopback.mjs`: every TCP server of this process listens on
// 127.0.0.1, whatever host (none: every interface) its code asks for. Portkey's start-server
// calls serve({fetch, port}) with no hostname; this keeps it off the network. Unix sockets and
// inherited handles are left alone.
import net from "node:net";

const HOST = "127.0.0.1";
const listen = net.Server.prototype.listen;

function isPort(v) {
  return typeof v === "number" || (typeof v === "string" && /^\d+$/.test(v));
}

net.Server.prototype.listen = function (...args) {
  const first = args[0];
  if (first !== null && typeof first === "object" && !Array.isArray(first)) {
    if (first.path === undefined && first.handle === undefined && first._handle === undefined
        && first.fd === undefined) {
      args[0] = { ...first, host: HOST };
      args[0].port ??= 0;
    }
    return listen.apply(this, args);
  }
  if (first === undefined || typeof first === "function" || isPort(first)) {
    const callback = typeof args[args.length - 1] === "function" ? args.pop() : undefined;
    const port = isPort(first) ? Number(first) : 0;
    // listen(port, host, backlog): the host is replaced, a backlog kept
    const backlog = args.slice(1).find((a) => typeof a === "number");
    const options = { port, host: HOST, ...(backlog === undefined ? {} : { backlog }) };
    return callback ? listen.call(this, options, callback) : listen.call(this, options);
  }
  return listen.apply(this, args); // a Unix socket path
};
