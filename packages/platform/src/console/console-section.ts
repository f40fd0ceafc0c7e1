import type { FastifyInstance } from 'fastify';
import type { LocalizedText, MessageKey } from '../i18n/i18n.js';
import type { ConsoleKit } from './console-kit.js';

/**
 * One console page (or a few pages that belong together), declared once:
 * its entry in a store's section navigation, if it has one, and its routes,
 * registered as one Fastify plugin with the shared {@link ConsoleKit}. A new
 * page is a file exporting one of these plus its line in `console-sections.ts`
 * (and its strings in the two catalogues); an embedding app passes its own
 * list to `createPlatform({ consoleSections })` instead.
 */
export interface ConsoleSection {
  /** A short name for logs and tests. */
  name: string;
  /**
   * A link in the store's section navigation: `/console/stores/{store}/{slug}`,
   * in registry order, labelled by a catalogue key or by the text it carries
   * for each locale (a page added by an embedding app, like a kind's name, D91).
   */
  nav?: { slug: string; label: MessageKey | LocalizedText };
  /** Registers the section's routes on its own encapsulated plugin instance. */
  routes(app: FastifyInstance, kit: ConsoleKit): Promise<void>;
}
