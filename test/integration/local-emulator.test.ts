import { describe, expect, inject, it } from 'vitest';
import { approvedPartner } from '../support/partners';
import { startServerProcess } from '../support/processes';

/** Names every plain JavaScript object already has: a client may still send them. */
const PROTOTYPE_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];

describe('the local API Gateway emulation with names objects already have', () => {
  it('treats query parameters named like object properties as unknown parameters (400), never a 5xx', async () => {
    const { key } = await approvedPartner();
    for (const name of PROTOTYPE_NAMES) {
      const response = await fetch(`${inject('apiBaseUrl')}/usage?${encodeURIComponent(name)}=1`, {
        headers: { Authorization: `Bearer ${key}` },
      });
      const body = (await response.json()) as { detail: string };

      expect(response.status, name).toBe(400);
      expect(response.headers.get('content-type')).toBe('application/problem+json');
      expect(body.detail).toContain(`Unknown query parameter "${name}"`);
    }
  });

  it('passes headers named like object properties through to the API and the pages', async () => {
    const { key } = await approvedPartner();
    for (const name of PROTOTYPE_NAMES.filter((candidate) => candidate !== '__proto__')) {
      const api = await fetch(`${inject('apiBaseUrl')}/usage`, {
        headers: { Authorization: `Bearer ${key}`, [name]: 'x' },
      });
      const page = await fetch(`${inject('activationBaseUrl')}/partner/demo-pms/activate?${name}=1`, {
        headers: { [name]: 'x' },
      });

      expect(api.status, name).toBe(200);
      expect(page.status, name).toBeLessThan(500);
      expect(page.headers.get('content-type')).toContain('text/html');
    }
  });

  it('logs paths, never query strings: an activation token stays out of the access log', async () => {
    const server = await startServerProcess({}, { accessLog: true });
    try {
      const token = 'TOKEN-THAT-MUST-NOT-BE-LOGGED';
      await fetch(`${server.runtime.activationBaseUrl}/partner/demo-pms/activate?token=${token}`);
      await fetch(`${server.runtime.apiBaseUrl}/usage?secret=${token}`);

      expect(server.output()).toContain('GET /partner/demo-pms/activate 400');
      expect(server.output()).not.toContain(token);
    } finally {
      await server.stop();
    }
  });

  it('prints a banner whose every address answers: API, reference docs, OpenAPI document, pages root', async () => {
    const server = await startServerProcess({});
    try {
      const banner = server.output();
      const addresses = [
        ...banner.matchAll(
          /(?:API base URL|API reference|OpenAPI document|Pages):\s+(http\S+?)[,)]?(?=\s|$)/g,
        ),
      ].map((match) => match[1] ?? '');

      expect(addresses).toEqual([
        server.runtime.apiBaseUrl,
        `${server.runtime.apiBaseUrl}/docs`,
        `${server.runtime.apiBaseUrl}/openapi.json`,
        `${server.runtime.activationBaseUrl}/`,
      ]);
      for (const address of addresses.slice(1)) {
        const response = await fetch(address);
        expect(response.status, address).toBe(200);
      }
    } finally {
      await server.stop();
    }
  }, 120_000);
});
