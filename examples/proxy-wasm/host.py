#!/usr/bin/env python3
"""A small proxy-wasm host (ABI 0.2.1) on wasmtime (the `wasmtime` package from PyPI), to run a
filter the way Envoy does without Envoy.

It loads a module, gives it the WASI imports (wasmtime's WASI, stdout and stderr inherited) and
the `env` functions of the ABI it imports, and calls its entry points in Envoy's order:
`_initialize` (then `main` when exported; `_start` instead when `_initialize` is not), then for
the plugin `proxy_on_context_create(root, 0)`, `proxy_on_vm_start`, `proxy_on_configure` with
the configuration buffer; and for each request `proxy_on_context_create(http, root)`,
`proxy_on_request_headers`, `proxy_on_response_headers`, `proxy_on_response_body` once per chunk
(the last with end_of_stream), `proxy_on_done`, `proxy_on_log`, `proxy_on_delete`.

Memory follows the ABI: data the host returns (buffers, header maps, values) is copied into
memory the module allocates with `proxy_on_memory_allocate` (`malloc` in its absence), and the
pointer and size are written where the module's `return_*` arguments point; the module owns
and frees it. Header maps are serialized as the ABI says: a u32 count, a (u32 name size, u32
value size) pair per entry, then each name and value followed by a NUL; all little-endian.

What Envoy does that this host does not: a filter that returns Pause (StopIteration) is
reported as an error (Envoy would buffer); HTTP and gRPC calls, shared data and queues,
metrics, foreign functions and local responses trap with a message naming the function.
Response headers can be changed only during `proxy_on_response_headers`, as in Envoy: a change
later is reported. The body buffer exists only during `proxy_on_response_body`, and holds just
the current chunk (what Envoy gives a filter that returns Continue); what the filter leaves in
it is what goes on.

Use: `Host(module).configure(config_bytes)` then `.exchange(request_headers,
response_headers, body, chunk_size)`; see check.py.
"""
import struct
import time

import wasmtime

OK, NOT_FOUND, BAD_ARGUMENT, INTERNAL_FAILURE = 0, 1, 2, 10
CONTINUE = 0
# proxy_buffer_type_t
HTTP_REQUEST_BODY, HTTP_RESPONSE_BODY, VM_CONFIGURATION, PLUGIN_CONFIGURATION = 0, 1, 6, 7
# proxy_map_type_t
HTTP_REQUEST_HEADERS, HTTP_REQUEST_TRAILERS, HTTP_RESPONSE_HEADERS, HTTP_RESPONSE_TRAILERS = 0, 1, 2, 3
LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "critical"]


def u32(value):
    """An i32 argument as the unsigned value it stands for (size_t and pointers on wasm32)."""
    return value & 0xFFFFFFFF


class HostError(Exception):
    """The module did something this host does not support, or broke the ABI."""


class Host:
    """One VM: a module instance with its plugin (root context id 1)."""

    ROOT = 1

    def __init__(self, module, engine=None, echo_logs=False):
        if isinstance(module, str):
            engine = engine or wasmtime.Engine()
            module = wasmtime.Module.from_file(engine, module)
        elif engine is None:
            raise ValueError("a compiled module needs the engine it was compiled with")
        self.logs = []  # (level name, message)
        self.echo_logs = echo_logs
        self.buffers = {}  # buffer type -> bytearray, while available
        self.maps = {t: [] for t in (HTTP_REQUEST_HEADERS, HTTP_REQUEST_TRAILERS, HTTP_RESPONSE_HEADERS, HTTP_RESPONSE_TRAILERS)}
        self.properties = {}  # tuple of path parts -> bytes
        self.tick_period_ms = 0
        self.next_context = Host.ROOT + 1
        self.store = wasmtime.Store(engine)
        wasi = wasmtime.WasiConfig()
        wasi.inherit_stdout()
        wasi.inherit_stderr()
        self.store.set_wasi(wasi)
        linker = wasmtime.Linker(engine)
        linker.define_wasi()
        for imp in module.imports:
            if imp.module != "env":
                continue
            implementation = getattr(self, imp.name, None)
            if implementation is None or not callable(implementation):
                implementation = self._unimplemented(imp.name)
            linker.define_func("env", imp.name, imp.type, implementation, access_caller=True)
        instance = linker.instantiate(self.store, module)
        self.exports = instance.exports(self.store)
        self.memory = self.exports["memory"]
        self.allocate = self._export("proxy_on_memory_allocate") or self._export("malloc")
        if self.allocate is None:
            raise HostError("the module exports neither proxy_on_memory_allocate nor malloc")
        if self._export("_initialize"):
            self.exports["_initialize"](self.store)
            if self._export("main"):
                self.exports["main"](self.store, 0, 0)
        elif self._export("_start"):
            self.exports["_start"](self.store)

    def _export(self, name):
        try:
            return self.exports[name]
        except KeyError:
            return None

    def call(self, name, *args):
        """Calls the callback `name` when the module exports it (all callbacks are optional)."""
        f = self._export(name)
        return None if f is None else f(self.store, *args)

    # --- the plugin ---------------------------------------------------------------------

    def configure(self, plugin_configuration, vm_configuration=b""):
        """Creates the root context, starts the VM and configures the plugin: returns what
        proxy_on_configure returned (False if proxy_on_vm_start failed)."""
        self.call("proxy_on_context_create", Host.ROOT, 0)
        self.buffers[VM_CONFIGURATION] = bytearray(vm_configuration)
        started = self.call("proxy_on_vm_start", Host.ROOT, len(vm_configuration))
        del self.buffers[VM_CONFIGURATION]
        if started is not None and not started:
            return False
        self.buffers[PLUGIN_CONFIGURATION] = bytearray(plugin_configuration)
        configured = self.call("proxy_on_configure", Host.ROOT, len(plugin_configuration))
        del self.buffers[PLUGIN_CONFIGURATION]
        return bool(configured) if configured is not None else True

    def exchange(self, request_headers, response_headers, body, chunk_size):
        """One request (headers only, end of stream) and its response, whose body goes to the
        filter in chunks of `chunk_size` bytes (the last one with end_of_stream). Returns the
        response headers as the filter left them and the body as it went on."""
        ctx = self.next_context
        self.next_context += 1
        self.call("proxy_on_context_create", ctx, Host.ROOT)
        self.maps[HTTP_REQUEST_HEADERS] = [(n, v) for n, v in request_headers]
        self._expect_continue("proxy_on_request_headers", ctx, len(request_headers), 1)
        self.maps[HTTP_RESPONSE_HEADERS] = [(n, v) for n, v in response_headers]
        chunks = [body[i : i + chunk_size] for i in range(0, len(body), chunk_size)]
        self._expect_continue("proxy_on_response_headers", ctx, len(response_headers), 0 if chunks else 1)
        headers_after = list(self.maps[HTTP_RESPONSE_HEADERS])
        out = bytearray()
        for i, chunk in enumerate(chunks):
            self.buffers[HTTP_RESPONSE_BODY] = bytearray(chunk)
            self._expect_continue("proxy_on_response_body", ctx, len(chunk), 1 if i == len(chunks) - 1 else 0)
            out += self.buffers.pop(HTTP_RESPONSE_BODY)
        if self.maps[HTTP_RESPONSE_HEADERS] != headers_after:
            raise HostError("response headers changed after proxy_on_response_headers (Envoy sent them already)")
        if self.call("proxy_on_done", ctx) in (None, 1):
            self.call("proxy_on_log", ctx)
            self.call("proxy_on_delete", ctx)
        else:
            raise HostError("proxy_on_done returned false: this host has no proxy_done")
        return headers_after, bytes(out)

    def _expect_continue(self, name, *args):
        action = self.call(name, *args)
        if action not in (None, CONTINUE):
            raise HostError(f"{name} returned {action} (Pause): this host does not buffer")

    # --- memory -------------------------------------------------------------------------

    def _read(self, caller, ptr, size):
        ptr, size = u32(ptr), u32(size)
        return bytes(self.memory.read(caller, ptr, ptr + size))

    def _write_u32(self, caller, ptr, value):
        self.memory.write(caller, struct.pack("<I", value), u32(ptr))

    def _return_bytes(self, caller, data, return_data, return_size):
        """Copies `data` into memory the module allocates; writes its pointer and size."""
        if not data:
            self._write_u32(caller, return_data, 0)
            self._write_u32(caller, return_size, 0)
            return OK
        ptr = u32(self.allocate(caller, len(data)))
        if ptr == 0:
            return INTERNAL_FAILURE
        self.memory.write(caller, data, ptr)
        self._write_u32(caller, return_data, ptr)
        self._write_u32(caller, return_size, len(data))
        return OK

    # --- env: logging, time, timers, properties ----------------------------------------

    def proxy_log(self, caller, level, message_data, message_size):
        if not 0 <= level < len(LOG_LEVELS):
            return BAD_ARGUMENT
        message = self._read(caller, message_data, message_size).decode("utf-8", "replace")
        self.logs.append((LOG_LEVELS[level], message))
        if self.echo_logs:
            print(f"[{LOG_LEVELS[level]}] {message}")
        return OK

    def proxy_get_log_level(self, caller, return_level):
        self._write_u32(caller, return_level, 0)
        return OK

    def proxy_get_current_time_nanoseconds(self, caller, return_time):
        self.memory.write(caller, struct.pack("<Q", time.time_ns()), u32(return_time))
        return OK

    def proxy_set_tick_period_milliseconds(self, caller, period):
        self.tick_period_ms = u32(period)
        return OK

    def proxy_get_property(self, caller, path_data, path_size, return_data, return_size):
        path = tuple(p.decode("utf-8", "replace") for p in self._read(caller, path_data, path_size).split(b"\0"))
        value = self.properties.get(path)
        if value is None:
            return NOT_FOUND
        return self._return_bytes(caller, value, return_data, return_size)

    # --- env: buffers -------------------------------------------------------------------

    def proxy_get_buffer_bytes(self, caller, buffer_type, start, max_size, return_data, return_size):
        buffer = self.buffers.get(buffer_type)
        if buffer is None:
            return NOT_FOUND
        start, max_size = u32(start), u32(max_size)
        if start > len(buffer):
            return BAD_ARGUMENT
        return self._return_bytes(caller, bytes(buffer[start : start + max_size]), return_data, return_size)

    def proxy_set_buffer_bytes(self, caller, buffer_type, start, size, value_data, value_size):
        buffer = self.buffers.get(buffer_type)
        if buffer is None:
            return NOT_FOUND
        start, size = u32(start), u32(size)
        value = self._read(caller, value_data, value_size)
        if start >= len(buffer):
            buffer += value  # append
        else:
            buffer[start : start + size] = value  # prepend, inject, replace
        return OK

    # --- env: header maps ---------------------------------------------------------------

    def _map(self, map_type):
        if map_type not in self.maps:
            raise HostError(f"header map type {map_type} is not available in this host")
        return self.maps[map_type]

    @staticmethod
    def serialize_map(pairs):
        head = struct.pack("<I", len(pairs))
        sizes = b"".join(struct.pack("<II", len(n.encode()), len(v)) for n, v in pairs)
        data = b"".join(n.encode() + b"\0" + v + b"\0" for n, v in pairs)
        return head + sizes + data

    @staticmethod
    def deserialize_map(data):
        if not data:
            return []
        (count,) = struct.unpack_from("<I", data, 0)
        pairs, p = [], 4 + 8 * count
        for i in range(count):
            name_size, value_size = struct.unpack_from("<II", data, 4 + 8 * i)
            name = data[p : p + name_size].decode()
            p += name_size + 1
            value = data[p : p + value_size]
            p += value_size + 1
            pairs.append((name, value))
        return pairs

    def proxy_get_header_map_pairs(self, caller, map_type, return_data, return_size):
        return self._return_bytes(caller, self.serialize_map(self._map(map_type)), return_data, return_size)

    def proxy_set_header_map_pairs(self, caller, map_type, map_data, map_size):
        self.maps[map_type] = self.deserialize_map(self._read(caller, map_data, map_size))
        return OK

    def proxy_get_header_map_value(self, caller, map_type, key_data, key_size, return_data, return_size):
        key = self._read(caller, key_data, key_size).decode().lower()
        for name, value in self._map(map_type):
            if name.lower() == key:
                return self._return_bytes(caller, value, return_data, return_size)
        return NOT_FOUND

    def proxy_replace_header_map_value(self, caller, map_type, key_data, key_size, value_data, value_size):
        key = self._read(caller, key_data, key_size).decode().lower()
        value = self._read(caller, value_data, value_size)
        pairs = self._map(map_type)
        at = next((i for i, (n, _) in enumerate(pairs) if n.lower() == key), None)
        rest = [(n, v) for n, v in pairs if n.lower() != key]
        if at is None:
            rest.append((key, value))
        else:
            rest.insert(at, (key, value))
        self.maps[map_type] = rest
        return OK

    def proxy_remove_header_map_value(self, caller, map_type, key_data, key_size):
        key = self._read(caller, key_data, key_size).decode().lower()
        self.maps[map_type] = [(n, v) for n, v in self._map(map_type) if n.lower() != key]
        return OK

    def proxy_add_header_map_value(self, caller, map_type, key_data, key_size, value_data, value_size):
        key = self._read(caller, key_data, key_size).decode().lower()
        self._map(map_type).append((key, self._read(caller, value_data, value_size)))
        return OK

    # --- the rest of the ABI --------------------------------------------------------------

    @staticmethod
    def _unimplemented(name):
        def trap(caller, *args):
            raise HostError(f"host.py does not implement {name} (called with {args})")

        return trap
