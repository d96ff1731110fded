import { describe, expect, it } from 'vitest';
import { senderAddress, stageConfig, stageSettings } from '../../lib/stage-config';

describe('stage configuration', () => {
  it('takes the mail sender from the deployment, never from a default', () => {
    const config = stageConfig('production', { mailFrom: 'Partner Team <partners@hostly.io>' });

    expect(config.mailFrom).toBe('Partner Team <partners@hostly.io>');
    expect(Object.values(stageSettings).some((settings) => 'mailFrom' in settings)).toBe(false);
  });

  it.each([
    'Partner Team <partners@example.com>',
    'partners@example.org',
    'ops@partner-api.test',
    'ops@mail.invalid',
  ])('refuses the placeholder %s as the production sender', (mailFrom) => {
    expect(() => stageConfig('production', { mailFrom })).toThrow(/placeholder/);
  });

  it('lets the sandbox send from a test domain, but never from something that is not an address', () => {
    expect(stageConfig('sandbox', { mailFrom: 'partners-sandbox@example.com' }).stage).toBe('sandbox');
    expect(() => stageConfig('sandbox', { mailFrom: 'Partner Team' })).toThrow(/not an e-mail address/);
  });

  it('reads the address out of a display-name sender', () => {
    expect(senderAddress('Partner Team <partners@hostly.io>')).toBe('partners@hostly.io');
    expect(senderAddress('partners@hostly.io')).toBe('partners@hostly.io');
  });
});
