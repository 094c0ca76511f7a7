import { createServer, type AddressInfo } from 'node:net';
import { ToxiproxyError } from 'toxiproxy-node-client';
import { describe, expect, it } from 'vitest';
import { addToxic, connectOutcome, startTestServer, UNDER_TEST, Upstream } from './test-support.ts';

// Ports of Toxiproxy's api_test.go, driven through toxiproxy-node-client (raw fetch only where
// the client cannot say it: bad JSON, a browser User-Agent, status codes of empty replies).

async function raw(url: string, method: string, body?: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { method, body, headers: { 'Content-Type': 'application/json', ...headers } });
  const text = await response.text();
  return { status: response.status, text, json: parsed(text) };
}

function parsed(text: string): unknown {
  try {
    return text === '' ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return undefined;
  }
}

async function busyPort(): Promise<{ port: number; close: () => Promise<void> }> {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  return {
    port: (blocker.address() as AddressInfo).port,
    close: () => new Promise((resolve) => blocker.close(() => resolve())),
  };
}

describe('toxiproxy API: proxies', () => {
  it('reports version 2.12.0 and starts with no proxies', async () => {
    await using server = await startTestServer();
    expect(JSON.parse(await server.client.getVersion())).toEqual({ version: '2.12.0' });
    expect(await server.client.getAll()).toEqual({});
  });

  it('creates a proxy (201) whose listen is the bound address, and lists and gets it', async () => {
    await using server = await startTestServer();
    const created = await raw(
      `${server.url}/proxies`,
      'POST',
      JSON.stringify({ name: 'db', listen: 'localhost:0', upstream: 'localhost:20001' }),
    );
    expect(created.status).toBe(201);
    const proxy = created.json as Record<string, unknown>;
    expect(proxy).toMatchObject({ name: 'db', upstream: 'localhost:20001', enabled: true, toxics: [] });
    expect(proxy.listen).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(proxy.listen).not.toBe('127.0.0.1:0');

    const all = await server.client.getAll();
    expect(Object.keys(all)).toEqual(['db']);
    const got = await server.client.get('db');
    expect(got.toJson()).toEqual({ name: 'db', listen: proxy.listen, upstream: 'localhost:20001', enabled: true });
    expect(await connectOutcome(String(proxy.listen))).toBe('connected');
  });

  it('rejects a missing name or upstream (400) and malformed JSON (400) with an error body', async () => {
    await using server = await startTestServer();
    const noName = await raw(
      `${server.url}/proxies`,
      'POST',
      JSON.stringify({ listen: 'localhost:0', upstream: 'x:1' }),
    );
    expect(noName).toMatchObject({ status: 400, json: { error: 'missing required field: name', status: 400 } });
    const noUpstream = await raw(`${server.url}/proxies`, 'POST', JSON.stringify({ name: 'test' }));
    expect(noUpstream).toMatchObject({ status: 400, json: { error: 'missing required field: upstream', status: 400 } });
    const badJson = await raw(`${server.url}/proxies`, 'POST', '{"name": ');
    expect(badJson.status).toBe(400);
    expect(badJson.json).toMatchObject({ status: 400, error: expect.stringMatching(/^bad request body/) });
    const badType = await raw(
      `${server.url}/proxies`,
      'POST',
      JSON.stringify({ name: 'x', upstream: 'x:1', enabled: 'yes' }),
    );
    expect(badType.status).toBe(400);
    await expect(server.client.createProxy({ name: '', listen: 'localhost:0', upstream: '' })).rejects.toThrow(
      'status code 400',
    );
    expect(await server.client.getAll()).toEqual({});
  });

  it('answers 409 for a second proxy with the same name, and accepts it after a delete', async () => {
    await using server = await startTestServer();
    const first = await server.client.createProxy({ name: 'db', listen: 'localhost:0', upstream: 'localhost:20001' });
    const again = server.client.createProxy({ name: 'db', listen: 'localhost:0', upstream: 'localhost:20001' });
    await expect(again).rejects.toBeInstanceOf(ToxiproxyError);
    await expect(again).rejects.toThrow('status code 409');
    await first.remove();
    await server.client.createProxy({ name: 'db', listen: 'localhost:0', upstream: 'localhost:20001' });
  });

  it('answers 500 naming the address when the listen port is taken', async () => {
    await using server = await startTestServer();
    const first = await server.client.createProxy({ name: 'one', listen: 'localhost:0', upstream: 'localhost:20001' });
    const conflict = await raw(
      `${server.url}/proxies`,
      'POST',
      JSON.stringify({ name: 'two', listen: first.listen, upstream: 'localhost:1' }),
    );
    expect(conflict).toMatchObject({
      status: 500,
      json: { error: `listen tcp ${first.listen}: bind: address already in use`, status: 500 },
    });
    expect(Object.keys(await server.client.getAll())).toEqual(['one']);
    await first.remove();
    const second = await server.client.createProxy({ name: 'two', listen: first.listen, upstream: 'localhost:1' });
    expect(second.listen).toBe(first.listen);
  });

  it('deletes a proxy (204): its port refuses connections and a second delete is 404', async () => {
    await using server = await startTestServer();
    const proxy = await server.client.createProxy({ name: 'db', listen: 'localhost:0', upstream: 'localhost:20001' });
    expect(await connectOutcome(proxy.listen)).toBe('connected');
    expect((await raw(`${server.url}/proxies/db`, 'DELETE')).status).toBe(204);
    expect(await connectOutcome(proxy.listen)).toBe('ECONNREFUSED');
    expect(await server.client.getAll()).toEqual({});
    const again = await raw(`${server.url}/proxies/db`, 'DELETE');
    expect(again).toMatchObject({ status: 404, json: { error: 'proxy not found', status: 404 } });
    await expect(server.client.get('db')).rejects.toThrow('status code 404');
  });

  it('creates a disabled proxy that reports listen as given and does not listen until enabled', async () => {
    await using server = await startTestServer();
    const free = await busyPort();
    await free.close();
    const listen = `127.0.0.1:${free.port}`;
    const disabled = await server.client.createProxy({
      name: 'db',
      listen,
      upstream: 'localhost:20001',
      enabled: false,
    });
    expect(disabled.toJson()).toEqual({ name: 'db', listen, upstream: 'localhost:20001', enabled: false });
    expect(await connectOutcome(listen)).toBe('ECONNREFUSED');

    const lazy = await server.client.createProxy({
      name: 'lazy',
      listen: 'localhost:0',
      upstream: 'localhost:1',
      enabled: false,
    });
    expect(lazy.listen).toBe('localhost:0');

    const enabled = await disabled.update({ enabled: true } as never);
    expect(enabled.toJson()).toEqual({ name: 'db', listen, upstream: 'localhost:20001', enabled: true });
    expect(await connectOutcome(listen)).toBe('connected');
    await enabled.update({ enabled: false } as never);
    expect(await connectOutcome(listen)).toBe('ECONNREFUSED');
  });

  it('re-enables a localhost:0 proxy on the same resolved port and keeps fields absent from an update', async () => {
    await using server = await startTestServer();
    const proxy = await server.client.createProxy({ name: 'db', listen: 'localhost:0', upstream: 'localhost:20001' });
    const disabled = await proxy.update({ enabled: false } as never);
    expect(disabled.toJson()).toEqual({
      name: 'db',
      listen: proxy.listen,
      upstream: 'localhost:20001',
      enabled: false,
    });
    const enabled = await disabled.update({ enabled: true } as never);
    expect(enabled.listen).toBe(proxy.listen);
    expect(await connectOutcome(proxy.listen)).toBe('connected');
  });

  it('moves a proxy when listen changes and reports 404 for unknown proxies', async () => {
    await using server = await startTestServer();
    const proxy = await server.client.createProxy({ name: 'db', listen: 'localhost:0', upstream: 'localhost:20001' });
    const moved = await proxy.update({ listen: '127.0.0.1:0', upstream: 'localhost:20002' } as never);
    expect(moved.enabled).toBe(true);
    expect(moved.upstream).toBe('localhost:20002');
    expect(moved.listen).not.toBe(proxy.listen);
    expect(await connectOutcome(moved.listen)).toBe('connected');
    expect(await connectOutcome(proxy.listen)).toBe('ECONNREFUSED');
    expect((await raw(`${server.url}/proxies/nope`, 'POST', '{}')).status).toBe(404);
    expect((await raw(`${server.url}/proxies/nope/toxics`, 'GET')).status).toBe(404);
  });

  it('populates proxies (201), keeps an identical existing proxy with its toxics, replaces a changed one', async () => {
    await using server = await startTestServer();
    const one = await server.client.createProxy({ name: 'one', listen: 'localhost:0', upstream: 'localhost:7171' });
    const two = await server.client.createProxy({ name: 'two', listen: 'localhost:0', upstream: 'localhost:7474' });
    await addToxic(one, { type: 'latency' });
    const populated = await server.client.populate([
      { name: 'one', listen: one.listen, upstream: 'localhost:7171' },
      { name: 'two', listen: 'localhost:0', upstream: 'localhost:7676' },
      { name: 'three', listen: 'localhost:0', upstream: 'localhost:7777', enabled: false },
    ]);
    expect(Object.keys(populated)).toEqual(['one', 'two', 'three']);
    expect(populated.one?.listen).toBe(one.listen);
    expect(populated.two?.upstream).toBe('localhost:7676');
    expect(populated.three?.enabled).toBe(false);
    const toxics = await raw(`${server.url}/proxies/one/toxics`, 'GET');
    expect(toxics.json).toMatchObject([{ type: 'latency', name: 'latency_downstream' }]);
    expect(await connectOutcome(two.listen)).toBe('ECONNREFUSED');
    expect(await connectOutcome(populated.two?.listen ?? '')).toBe('connected');
  });

  it('populate defaults enabled to true and answers 201 with {"proxies": [...]}', async () => {
    await using server = await startTestServer();
    const reply = await raw(
      `${server.url}/populate`,
      'POST',
      JSON.stringify([{ name: 'test', listen: 'localhost:0', upstream: 'localhost:7171' }]),
    );
    expect(reply.status).toBe(201);
    const body = reply.json as { proxies: Array<{ listen: string; enabled: boolean }> };
    expect(body.proxies).toHaveLength(1);
    expect(body.proxies[0]?.enabled).toBe(true);
    expect(await connectOutcome(body.proxies[0]?.listen ?? '')).toBe('connected');
  });

  it('populate rejects a nameless entry (400, proxies null) without creating anything', async () => {
    await using server = await startTestServer();
    const reply = await raw(
      `${server.url}/populate`,
      'POST',
      JSON.stringify([
        { name: 'one', listen: 'localhost:0', upstream: 'localhost:7171' },
        { name: '', listen: '' },
      ]),
    );
    expect(reply).toMatchObject({
      status: 400,
      json: { error: 'missing required field: name at proxy 2', status: 400, proxies: null },
    });
    expect(await server.client.getAll()).toEqual({});
    expect((await raw(`${server.url}/populate`, 'POST', '{"not": "a list"}')).status).toBe(400);
  });

  it('populate stops at a bad listen address (500) and reports the proxies it created', async () => {
    await using server = await startTestServer();
    const reply = await raw(
      `${server.url}/populate`,
      'POST',
      JSON.stringify([
        { name: 'one', listen: 'localhost:0', upstream: 'localhost:7171' },
        { name: 'two', listen: 'local373', upstream: 'localhost:7474' },
        { name: 'three', listen: 'localhost:0', upstream: 'localhost:7676' },
      ]),
    );
    expect(reply.status).toBe(500);
    expect(reply.json).toMatchObject({ status: 500, proxies: [{ name: 'one' }] });
    expect(Object.keys(await server.client.getAll())).toEqual(['one']);
  });

  it('refuses browsers (403) and serves other user agents', async () => {
    await using server = await startTestServer();
    const browser = await raw(`${server.url}/proxies`, 'GET', undefined, {
      'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64)',
    });
    expect(browser.status).toBe(403);
    expect((await raw(`${server.url}/proxies`, 'GET', undefined, { 'User-Agent': 'Wget/2.1' })).status).toBe(200);
    const missing = await raw(`${server.url}/nothing-here`, 'GET');
    expect(missing.status).toBe(404);
    // A deliberate difference (README): ours answers these with the JSON error body, the real one in plain text.
    if (UNDER_TEST === 'builtin') {
      expect(browser.json).toEqual({ error: expect.any(String), status: 403 });
      expect(missing.json).toEqual({ error: expect.any(String), status: 404 });
    } else {
      expect(browser.json).toBeUndefined();
      expect(browser.text).toMatch(/user agent/i);
      expect(missing.json).toBeUndefined();
    }
  });
});

describe('toxiproxy API: toxics', () => {
  it('adds a toxic with defaults: 200, name <type>_<stream>, downstream, toxicity 1, every attribute', async () => {
    await using server = await startTestServer();
    const proxy = await server.client.createProxy({ name: 'db', listen: 'localhost:0', upstream: 'localhost:20001' });
    const reply = await raw(
      `${server.url}/proxies/db/toxics`,
      'POST',
      JSON.stringify({ type: 'slicer', attributes: { average_size: 10 } }),
    );
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({
      name: 'slicer_downstream',
      type: 'slicer',
      stream: 'downstream',
      toxicity: 1,
      attributes: { average_size: 10, size_variation: 0, delay: 0 },
    });
    const latency = await addToxic(proxy, {
      name: 'foobar',
      type: 'latency',
      stream: 'upstream',
      toxicity: 0.2,
      attributes: { latency: 100, jitter: 10 },
    });
    expect(latency.toJson()).toEqual({
      name: 'foobar',
      type: 'latency',
      stream: 'upstream',
      toxicity: 0.2,
      attributes: { latency: 100, jitter: 10 },
    });
    const listed = await raw(`${server.url}/proxies/db/toxics`, 'GET');
    expect((listed.json as Array<{ name: string }>).map((toxic) => toxic.name)).toEqual([
      'foobar',
      'slicer_downstream',
    ]);
    const shown = await proxy.getToxic('foobar');
    expect(shown.toJson()).toEqual(latency.toJson());
    const withToxics = await raw(`${server.url}/proxies/db`, 'GET');
    expect((withToxics.json as { toxics: unknown[] }).toxics).toHaveLength(2);
  });

  it('gives every toxic type its attributes, accepts noop, and rejects bad type, stream and attributes (400)', async () => {
    await using server = await startTestServer();
    await server.client.createProxy({ name: 'db', listen: 'localhost:0', upstream: 'localhost:20001' });
    const expected: Record<string, Record<string, number>> = {
      latency: { latency: 0, jitter: 0 },
      bandwidth: { rate: 0 },
      slow_close: { delay: 0 },
      timeout: { timeout: 0 },
      reset_peer: { timeout: 0 },
      slicer: { average_size: 0, size_variation: 0, delay: 0 },
      limit_data: { bytes: 0 },
      noop: {},
    };
    for (const [type, attributes] of Object.entries(expected)) {
      const reply = await raw(`${server.url}/proxies/db/toxics`, 'POST', JSON.stringify({ type, stream: 'upstream' }));
      expect(reply).toMatchObject({ status: 200, json: { name: `${type}_upstream`, attributes } });
    }
    const badType = await raw(`${server.url}/proxies/db/toxics`, 'POST', JSON.stringify({ type: 'walrus' }));
    expect(badType).toMatchObject({ status: 400, json: { error: 'invalid toxic type', status: 400 } });
    const badStream = await raw(
      `${server.url}/proxies/db/toxics`,
      'POST',
      JSON.stringify({ type: 'latency', stream: 'walrustream' }),
    );
    expect(badStream).toMatchObject({
      status: 400,
      json: { error: 'stream was invalid, can be either upstream or downstream' },
    });
    const badAttribute = await raw(
      `${server.url}/proxies/db/toxics`,
      'POST',
      JSON.stringify({ type: 'latency', attributes: { latency: 'slow' } }),
    );
    expect(badAttribute.status).toBe(400);
    expect((await raw(`${server.url}/proxies/db/toxics`, 'POST', 'nope')).status).toBe(400);
    expect((await raw(`${server.url}/proxies/nope/toxics`, 'POST', JSON.stringify({ type: 'latency' }))).status).toBe(
      404,
    );
  });

  it('answers 409 for a toxic name used in either direction, while the default names differ per stream', async () => {
    await using server = await startTestServer();
    const proxy = await server.client.createProxy({ name: 'db', listen: 'localhost:0', upstream: 'localhost:20001' });
    await addToxic(proxy, { name: 'foobar', type: 'latency', stream: 'upstream' });
    await expect(addToxic(proxy, { name: 'foobar', type: 'slow_close', stream: 'downstream' })).rejects.toThrow(
      'status code 409',
    );
    await addToxic(proxy, { type: 'latency', stream: 'upstream' });
    await addToxic(proxy, { type: 'latency', stream: 'downstream' });
    await expect(addToxic(proxy, { type: 'latency', stream: 'downstream' })).rejects.toThrow('status code 409');
    const listed = await raw(`${server.url}/proxies/db/toxics`, 'GET');
    expect(listed.json).toMatchObject([
      { name: 'foobar', type: 'latency', stream: 'upstream' },
      { name: 'latency_upstream', stream: 'upstream' },
      { name: 'latency_downstream', stream: 'downstream' },
    ]);
  });

  it('updates a toxic: attributes merge, toxicity is kept when absent, other fields are ignored', async () => {
    await using server = await startTestServer();
    const proxy = await server.client.createProxy({ name: 'db', listen: 'localhost:0', upstream: 'localhost:20001' });
    const toxic = await addToxic(proxy, { type: 'latency', attributes: { latency: 100, jitter: 10 } });
    const updated = await toxic.update({ toxicity: 0.5, attributes: { latency: 1000 } } as never);
    expect(updated.toJson()).toMatchObject({ toxicity: 0.5, attributes: { latency: 1000, jitter: 10 } });
    const again = await raw(
      `${server.url}/proxies/db/toxics/latency_downstream`,
      'POST',
      JSON.stringify({ name: 'renamed', stream: 'upstream', type: 'timeout', attributes: { latency: 500 } }),
    );
    expect(again).toMatchObject({
      status: 200,
      json: { name: 'latency_downstream', type: 'latency', stream: 'downstream', toxicity: 0.5 },
    });
    expect((again.json as { attributes: unknown }).attributes).toEqual({ latency: 500, jitter: 10 });
    expect((await raw(`${server.url}/proxies/db/toxics/nope`, 'POST', '{}')).status).toBe(404);
    expect((await raw(`${server.url}/proxies/db/toxics/latency_downstream`, 'POST', '{"toxicity": "x"}')).status).toBe(
      400,
    );
  });

  it('removes a toxic (204) and answers 404 for it afterwards', async () => {
    await using server = await startTestServer();
    const proxy = await server.client.createProxy({ name: 'db', listen: 'localhost:0', upstream: 'localhost:20001' });
    const toxic = await addToxic(proxy, { type: 'latency' });
    expect((await raw(`${server.url}/proxies/db/toxics/latency_downstream`, 'DELETE')).status).toBe(204);
    await expect(toxic.remove()).rejects.toThrow('status code 404');
    await expect(proxy.getToxic('latency_downstream')).rejects.toThrow('status code 404');
    expect((await raw(`${server.url}/proxies/db/toxics`, 'GET')).json).toEqual([]);
  });

  it('reset (204) re-enables every proxy and removes every toxic but keeps the proxies', async () => {
    await using server = await startTestServer();
    await using upstream = await Upstream.start({ echo: true });
    const proxy = await server.client.createProxy({ name: 'db', listen: 'localhost:0', upstream: upstream.address });
    await addToxic(proxy, { type: 'latency', attributes: { latency: 100 } });
    await proxy.update({ enabled: false } as never);
    expect((await raw(`${server.url}/reset`, 'POST')).status).toBe(204);
    const after = await server.client.get('db');
    expect(after.enabled).toBe(true);
    expect(after.listen).toBe(proxy.listen);
    expect((await raw(`${server.url}/proxies/db/toxics`, 'GET')).json).toEqual([]);
    expect(await connectOutcome(proxy.listen)).toBe('connected');
    await server.client.reset();
  });
});
