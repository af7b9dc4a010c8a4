export { BUILT_IN_LOCALES, builtInTranslations, createCatalogue, keysOf } from './catalogue.js';
export type { BuiltInLocale, Catalogue, CatalogueOptions, TranslationOverrides, TranslationTree, Translator, Vars } from './catalogue.js';
export { negotiateLocale } from './negotiate.js';
export { cardBrand, formatCard, formatDate, formatMoney } from './format.js';
