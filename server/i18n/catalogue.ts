/**
 * The shopper pages' strings in English, Dutch, German, French and Spanish (`locales/*.json`,
 * one home for every kit page and the sandbox's shopper pages), served through i18next. A shop
 * adds a language or overrides single strings with `translations`; a key missing in a language
 * falls back to English and is reported to `onMissing`, which the locale test turns into a failure.
 */
import { readFileSync } from 'node:fs';
import i18next, { type i18n as I18n } from 'i18next';
import { negotiateLocale } from './negotiate.js';

export const BUILT_IN_LOCALES = ['en', 'nl', 'de', 'fr', 'es'] as const;
export type BuiltInLocale = (typeof BUILT_IN_LOCALES)[number];

/** Nested strings, as in `locales/en.json`. */
export interface TranslationTree {
  [key: string]: string | TranslationTree;
}

/** Extra languages or overridden strings, by locale: `{ nl: { pay: { heading: '…' } } }`. */
export type TranslationOverrides = Record<string, TranslationTree>;

export type Vars = Record<string, string | number>;

/** One language's strings. */
export interface Translator {
  /** The language shown, e.g. `nl` (also the page's `lang` attribute). */
  locale: string;
  t: (key: string, vars?: Vars) => string;
  /**
   * The translation of an English sentence the kit's code passes to a page (headings, messages,
   * field errors), found by its English text under `messages`; unknown text stays as it is.
   */
  text: (english: string) => string;
  /** A field error: the exact sentence translated, else the field's generic message. */
  fieldError: (field: string, english: string) => string;
}

export interface CatalogueOptions {
  /** Language when neither the order nor the browser names one the catalogue has. Default `en`. */
  defaultLocale?: string;
  translations?: TranslationOverrides;
  /** Called for each key a language lacks (the English fallback is shown). */
  onMissing?: (locale: string, key: string) => void;
}

export interface Catalogue {
  /** Every language with strings: the built-in ones plus those the shop added. */
  locales: readonly string[];
  defaultLocale: string;
  /** The first of `preferred` the catalogue has (an order's locale), else from Accept-Language, else the default. */
  pick: (preferred: (string | undefined)[], acceptLanguage?: string) => string;
  translator: (locale: string) => Translator;
}

/** Bounds of the negotiated-language memo: distinct values kept, and the longest value kept. */
const NEGOTIATED_MAX = 256;
const NEGOTIATED_KEY_MAX = 200;

function readLocale(locale: BuiltInLocale): TranslationTree {
  return JSON.parse(readFileSync(new URL(`./locales/${locale}.json`, import.meta.url), 'utf8')) as TranslationTree;
}

let builtIn: Record<string, TranslationTree> | undefined;
/** The shipped catalogue, read once per process. */
export function builtInTranslations(): Record<string, TranslationTree> {
  builtIn ??= Object.fromEntries(BUILT_IN_LOCALES.map((l) => [l, readLocale(l)]));
  return builtIn;
}

/** Every leaf key of a tree, dotted (`pay.card.number`). */
export function keysOf(tree: TranslationTree, prefix = ''): string[] {
  return Object.entries(tree).flatMap(([k, v]) => (typeof v === 'string' ? [prefix + k] : keysOf(v, `${prefix}${k}.`)));
}

export function createCatalogue(options: CatalogueOptions = {}): Catalogue {
  const shipped = builtInTranslations();
  const instance: I18n = i18next.createInstance();
  void instance.init({
    resources: Object.fromEntries(Object.entries(shipped).map(([l, tree]) => [l, { translation: structuredClone(tree) }])),
    lng: 'en',
    fallbackLng: 'en',
    initAsync: false,
    // pug escapes what it prints; escaping here too would show &amp;.
    interpolation: { escapeValue: false },
    returnNull: false,
  });
  for (const [locale, tree] of Object.entries(options.translations ?? {})) {
    instance.addResourceBundle(locale, 'translation', tree, true, true);
  }
  const locales = [...new Set([...BUILT_IN_LOCALES, ...Object.keys(options.translations ?? {})])];
  const defaultLocale = options.defaultLocale !== undefined && locales.includes(options.defaultLocale) ? options.defaultLocale : 'en';
  // English sentence → key under `messages`, for `text()`.
  const english = new Map<string, string>();
  const messages = shipped.en?.messages;
  if (typeof messages === 'object') for (const [key, value] of Object.entries(messages)) if (typeof value === 'string') english.set(value, key);

  const translators = new Map<string, Translator>();
  function translator(requested: string): Translator {
    const locale = locales.includes(requested) ? requested : defaultLocale;
    const known = translators.get(locale);
    if (known !== undefined) return known;
    const fixed = instance.getFixedT(locale);
    // Strings are fixed once the catalogue is made, so a key without variables is looked up once:
    // i18next's lookup was a tenth of a hosted pay page's CPU.
    const plain = new Map<string, string>();
    const t = (key: string, vars?: Vars): string => {
      if (vars === undefined) {
        const known = plain.get(key);
        if (known !== undefined) return known;
      }
      const missing = instance.getResource(locale, 'translation', key) === undefined;
      if (missing) options.onMissing?.(locale, key);
      const value = fixed(key, vars ?? {});
      if (vars === undefined && !missing) plain.set(key, value);
      return value;
    };
    const made: Translator = {
      locale,
      t,
      text(sentence) {
        const key = english.get(sentence);
        return key === undefined ? sentence : t(`messages.${key}`);
      },
      fieldError(field, sentence) {
        const key = english.get(sentence);
        if (key !== undefined) return t(`messages.${key}`);
        if (locale === 'en' || instance.getResource('en', 'translation', `pay.fieldError.${field}`) === undefined) return sentence;
        return t(`pay.fieldError.${field}`);
      },
    };
    translators.set(locale, made);
    return made;
  }

  // Every page negotiates its language, mostly from the same few tags and headers: each answer
  // is kept (a bounded map, as headers come from anyone), so parsing one header runs once.
  const negotiated = new Map<string, string | null>();
  const negotiate = (value: string): string | undefined => {
    const known = negotiated.get(value);
    if (known !== undefined) return known ?? undefined;
    const match = negotiateLocale(value, locales);
    if (value.length <= NEGOTIATED_KEY_MAX) {
      if (negotiated.size >= NEGOTIATED_MAX) negotiated.clear();
      negotiated.set(value, match ?? null);
    }
    return match;
  };

  return {
    locales,
    defaultLocale,
    pick(preferred, acceptLanguage) {
      for (const candidate of preferred) {
        const match = candidate === undefined ? undefined : negotiate(candidate);
        if (match !== undefined) return match;
      }
      return negotiate(acceptLanguage ?? '') ?? defaultLocale;
    },
    translator,
  };
}
