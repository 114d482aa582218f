// Word pools for generated data. Plain data only; generator.ts and content.ts combine them.

export const FIRST_NAMES = [
  'Amara',
  'Ben',
  'Chloé',
  'Daniel',
  'Elif',
  'Farah',
  'George',
  'Hannah',
  'Isaac',
  'Jun',
  'Katarzyna',
  'Liam',
  'Maya',
  'Nikhil',
  'Olivia',
  'Priya',
  'Rafael',
  'Sofia',
  'Tomás',
  'Zoë',
] as const;

export const LAST_NAMES = [
  'Adeyemi',
  'Brennan',
  'Castillo',
  'Dubois',
  'Eriksen',
  'Fitzgerald',
  'García',
  'Hoffmann',
  'Iqbal',
  'Jensen',
  'Kowalski',
  'Lindqvist',
  "O'Connor",
  'Patel',
  'Rossi',
  'Schmidt',
  'Tanaka',
  'Whitfield',
] as const;

export const CLIENT_NAMES = [
  'Harlow Logistics Ltd',
  'Meridian Health Partners',
  'Blackwater Estates',
  'Nordlicht GmbH',
  'Okafor & Sons',
  'Pinecrest Housing Association',
  'Quayside Marine Services',
  'Redfern Family Trust',
  'Silverline Software Inc.',
  'Thornbury Parish Council',
  'Vance Aerospace',
  'Willow Creek Dental',
  'Ashdown Retail Group',
  'Łódź Textiles Sp. z o.o.',
  'Brightwater Foods',
  'Castellan Holdings',
  'Dunmore Agricultural Co-op',
] as const;

export const MATTER_TOPICS = [
  'Lease renewal',
  'Employment tribunal claim',
  'Share purchase agreement',
  'Boundary dispute',
  'Commercial contract review',
  'Probate and estate administration',
  'Planning appeal',
  'Data protection complaint',
  'Debt recovery',
  'Shareholder agreement',
  'Supplier dispute',
  'Trademark registration',
  'Construction defects claim',
  'Refinancing',
] as const;

export const RECORDING_KINDS = [
  'Client call',
  'Attendance note',
  'Dictation',
  'Team meeting',
  'Site visit debrief',
  'Voicemail',
  'Hearing debrief',
  'Negotiation call',
  'Witness interview',
  'Case review',
] as const;

export const INTERNAL_TITLES = [
  'Weekly team meeting',
  'Dictation: file note',
  'Knowledge-sharing session',
  'Billing review',
  'Training: new intake process',
  'Partner catch-up',
  'Risk and compliance check-in',
] as const;

export const NOTE_TEMPLATES = ['Meeting summary', 'Action items', 'Key dates', 'Attendance note'] as const;
export const DOCUMENT_TEMPLATES = ['Client letter draft', 'File note', 'Time entry narrative'] as const;

export const PROVIDERS = ['clio', 'netdocuments', 'imanage', 'sharepoint'] as const;

/** Sentence patterns; {client}, {topic}, {person}, {date}, {amount}, {days} are filled in. */
export const SENTENCES = [
  'We went through the latest draft of the {topic} documents line by line.',
  '{person} confirmed that the other side has not yet responded to our letter of {date}.',
  'The client wants to keep costs below {amount} if at all possible.',
  'There is a deadline on {date} that we cannot move, so the bundle has to be ready a week earlier.',
  'We agreed to send a short summary of the options to {client} by the end of the week.',
  'The main risk is that the limitation period runs out in about {days} days.',
  '{person} will check the title documents and report back.',
  'The counterparty proposed a settlement of {amount}, which the client considers too low.',
  'We discussed whether mediation would be worth trying before issuing proceedings.',
  'The client asked for a clear timetable and an estimate of fees for the next stage.',
  'Two of the invoices in dispute were paid late but in full.',
  'We need signed instructions before we can file anything on {date}.',
  'The expert report should be available within {days} days.',
  'Everyone agreed that the indemnity clause needs to be narrowed.',
  '{person} raised a concern about the confidentiality of the board minutes.',
  'The landlord has indicated that a rent review is likely next year.',
  'We will diarise a follow-up call for {date}.',
  'The insurers have been notified and acknowledged the claim.',
  'A draft witness statement was circulated for comments.',
  'The client is happy for us to correspond directly with {person}.',
] as const;

export const ACTIONS = [
  'Send engagement letter to {client}',
  'Review disclosure list',
  'Chase signed authority form',
  'Prepare chronology of events',
  'Instruct counsel for an opinion',
  'Update the costs estimate',
  'Book meeting room for the next session',
  'File the application with the court',
  'Circulate revised draft to {person}',
  'Check conflict register',
  'Diarise the limitation date',
] as const;
