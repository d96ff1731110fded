import { readFile } from 'node:fs/promises';
import { TypeScriptGenerator } from '@asyncapi/modelina';
import { describe, expect, it } from 'vitest';

/*
 * AsyncAPI's own model generator (Modelina) reads the document as partners' and the platform's
 * tooling would, from the file as published, and names every model after a title: the events'
 * envelopes and details of both directions, and what they hold (a reservation, a provisioned
 * property, a knowledge base with its questions and offers, and the enums). No model is left
 * anonymous.
 */
describe('models generated from the AsyncAPI document', () => {
  it('are named after the titles, in both directions, none anonymous', async () => {
    // Prepare
    const document = JSON.parse(await readFile('asyncapi/platform-events.json', 'utf8'));

    // Act
    const models = await new TypeScriptGenerator({ modelType: 'interface' }).generate(document);

    // Assess
    const byName = new Map(models.map((model) => [model.modelName, model.result]));
    const details = [
      'SeatActivated',
      'SeatDeactivated',
      'PropertyUpdated',
      'SponsorshipEnded',
      'ReservationChanged',
      'HostErasureRequested',
      'HostProvisioned',
      'KnowledgeBaseSubmitted',
      'HostErased',
    ];
    expect([...byName.keys()].sort()).toEqual(
      [
        ...details.flatMap((type) => [`${type}Event`, `${type}Detail`]),
        'PlatformEvents',
        'ServiceEvents',
        'Reservation',
        'ReservationStatus',
        'ProvisionedProperty',
        'KnowledgeBase',
        'Faq',
        'Offer',
        'HostAccount',
        'Language',
        'Currency',
      ].sort(),
    );
    expect(byName.get('HostProvisionedDetail')).toContain('property: ProvisionedProperty;');
    expect(byName.get('KnowledgeBaseSubmittedDetail')).toContain('knowledgeBase: KnowledgeBase;');
    expect(byName.get('KnowledgeBase')).toMatch(/faqs: Faq\[\];[\s\S]*offers: Offer\[\];/);
    expect(byName.get('ReservationChangedDetail')).toContain('reservation: Reservation;');
    // Name or units, as the contract says, without turning the detail into a union of the two.
    expect(byName.get('PropertyUpdatedDetail')).toMatch(/propertyId: number;[\s\S]*units\?: number;/);
    expect(byName.get('ServiceEvents')).toBe(
      'type ServiceEvents = HostProvisionedEvent | KnowledgeBaseSubmittedEvent | HostErasedEvent;',
    );
  });
});
