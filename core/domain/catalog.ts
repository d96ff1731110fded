/**
 * The product catalog: names and descriptions, never a price. Products live in the table
 * (`lambdas/data/catalog.ts`); operators add and edit them with `npm run admin -- catalog`.
 * This list is what a new deployment starts with. A product id is a short lower-case name, so a
 * new product needs no code change (docs/design/activation-links.md).
 */
import type { Language, TranslatedLanguage } from './languages';

export type ProductId = string;

/** Lower-case letters, digits and hyphens, starting with a letter, at most 32 characters. */
export const PRODUCT_ID_PATTERN = /^[a-z][a-z0-9-]{0,31}$/;

/** Products one agreement or one activation link may name. */
export const MAX_PRODUCTS = 20;

export interface Product {
  readonly id: ProductId;
  readonly name: string;
  readonly description: string;
  /**
   * For a product that answers guests from the knowledge base the onboarding wizard fills: the
   * wizard's last button and its closing message say that the product goes live.
   */
  readonly goesLive?: { readonly submitLabel: string; readonly liveMessage: string };
  /** The texts above in other languages; what a language lacks, hosts read in English. */
  readonly translations?: ProductTranslations;
}

/** A product's texts in one language: any of them, the two `goesLive` texts together. */
export interface ProductTexts {
  readonly name?: string;
  readonly description?: string;
  readonly goesLive?: Product['goesLive'];
}
export type ProductTranslations = Readonly<Partial<Record<TranslatedLanguage, ProductTexts>>>;

/** A product's texts as a host reading `language` sees them: its translation, else English. */
export function productIn(product: Product, language: Language) {
  const translated = language === 'en' ? undefined : product.translations?.[language];
  return {
    id: product.id,
    name: translated?.name ?? product.name,
    description: translated?.description ?? product.description,
    ...(product.goesLive ? { goesLive: translated?.goesLive ?? product.goesLive } : {}),
  };
}

/** A default product: its texts in every host language but English, which is the product's own. */
interface DefaultProduct extends Product {
  readonly translations: Readonly<
    Record<TranslatedLanguage, Required<Pick<ProductTexts, 'name' | 'description'>> & ProductTexts>
  >;
}

/** The texts of `product` in one other language: its name, its description, and its `goesLive` exactly when it has one. */
type TextsLike<P extends Product> = Required<Pick<ProductTexts, 'name' | 'description'>> &
  (P extends { readonly goesLive: object }
    ? { readonly goesLive: NonNullable<Product['goesLive']> }
    : { readonly goesLive?: never });

/**
 * A default product as written below: the compiler refuses one without its texts in a host
 * language (a language added to `LANGUAGE_NAMES` asks for its texts here), or with a `goesLive`
 * in one language and not in another.
 */
const defaultProduct = <const P extends Product>(
  product: P & { readonly translations: Readonly<Record<TranslatedLanguage, TextsLike<P>>> },
): DefaultProduct => product;

/**
 * What every deployment starts with (`ensureCatalog`). The default texts of product P in language
 * L: `DEFAULT_CATALOG.find((product) => product.id === P)?.translations[L]`; English is the
 * product's own `name`, `description` and `goesLive`.
 */
export const DEFAULT_CATALOG: readonly DefaultProduct[] = [
  defaultProduct({
    id: 'assistant',
    name: 'AI guest assistant',
    description: 'Answers guest questions day and night from your property knowledge base.',
    goesLive: {
      submitLabel: 'Make my assistant live',
      liveMessage: 'Your assistant now answers guests.',
    },
    translations: {
      de: {
        name: 'KI-Gästeassistent',
        description: 'Beantwortet Fragen Ihrer Gäste rund um die Uhr mit dem Wissen über Ihre Unterkunft.',
        goesLive: {
          submitLabel: 'Meinen Assistenten aktivieren',
          liveMessage: 'Ihr Assistent beantwortet jetzt die Fragen Ihrer Gäste.',
        },
      },
      fr: {
        name: 'Assistant IA pour les voyageurs',
        description:
          'Répond jour et nuit aux questions des voyageurs grâce aux informations sur votre logement.',
        goesLive: {
          submitLabel: 'Activer mon assistant',
          liveMessage: 'Votre assistant répond désormais aux voyageurs.',
        },
      },
      es: {
        name: 'Asistente de IA para huéspedes',
        description:
          'Responde a las preguntas de los huéspedes día y noche con la información de su alojamiento.',
        goesLive: {
          submitLabel: 'Activar mi asistente',
          liveMessage: 'Su asistente ya responde a los huéspedes.',
        },
      },
      it: {
        name: 'Assistente IA per gli ospiti',
        description:
          'Risponde alle domande degli ospiti giorno e notte grazie alle informazioni sulla sua struttura.',
        goesLive: {
          submitLabel: 'Attiva il mio assistente',
          liveMessage: 'Il suo assistente ora risponde agli ospiti.',
        },
      },
    },
  }),
  defaultProduct({
    id: 'upsells',
    name: 'Upsells',
    description: 'Offers early check-in, late check-out and extras to guests before and during their stay.',
    translations: {
      de: {
        name: 'Zusatzangebote',
        description:
          'Bietet Gästen vor und während ihres Aufenthalts einen frühen Check-in, einen späten Check-out und Extras an.',
      },
      fr: {
        name: 'Ventes additionnelles',
        description:
          'Propose aux voyageurs une arrivée anticipée, un départ tardif et des extras avant et pendant leur séjour.',
      },
      es: {
        name: 'Ventas adicionales',
        description:
          'Ofrece a los huéspedes llegada anticipada, salida tardía y extras antes y durante su estancia.',
      },
      it: {
        name: 'Vendite aggiuntive',
        description:
          'Propone agli ospiti check-in anticipato, check-out posticipato ed extra prima e durante il soggiorno.',
      },
    },
  }),
  defaultProduct({
    id: 'guidebook',
    name: 'Digital guidebook',
    description: 'A mobile guide to your property and neighbourhood, shared with every booking.',
    translations: {
      de: {
        name: 'Digitale Gästemappe',
        description:
          'Ein Leitfaden fürs Smartphone zu Ihrer Unterkunft und ihrer Umgebung, geteilt mit jeder Buchung.',
      },
      fr: {
        name: 'Livret d’accueil numérique',
        description: 'Un guide mobile de votre logement et de son quartier, partagé avec chaque réservation.',
      },
      es: {
        name: 'Guía digital',
        description:
          'Una guía para el móvil sobre su alojamiento y el barrio, que se comparte con cada reserva.',
      },
      it: {
        name: 'Guida digitale',
        description:
          'Una guida per smartphone alla sua struttura e al quartiere, condivisa con ogni prenotazione.',
      },
    },
  }),
  defaultProduct({
    id: 'checkin',
    name: 'Online check-in',
    description: 'Collects guest details and arrival times before the guest arrives.',
    translations: {
      de: {
        name: 'Online-Check-in',
        description: 'Erfasst Gästedaten und Ankunftszeiten schon vor der Anreise.',
      },
      fr: {
        name: 'Enregistrement en ligne',
        description: 'Recueille les informations des voyageurs et leur heure d’arrivée avant leur venue.',
      },
      es: {
        name: 'Check-in en línea',
        description: 'Recoge los datos de los huéspedes y su hora de llegada antes de que lleguen.',
      },
      it: {
        name: 'Check-in online',
        description: 'Raccoglie i dati degli ospiti e l’orario di arrivo prima che arrivino.',
      },
    },
  }),
];

export function isProductId(value: unknown): value is ProductId {
  return typeof value === 'string' && PRODUCT_ID_PATTERN.test(value);
}

/** The first of the chosen products that goes live with the wizard, in catalog order. */
export function productGoingLive(catalog: readonly Product[], chosen: readonly ProductId[]) {
  return catalog.find((product) => product.goesLive && chosen.includes(product.id));
}
