/**
 * The demo shop's catalogue: a handful of tea things, prices in integer minor units of one
 * currency. Pictures are small SVG data URIs, allowed by the pages' CSP (`img-src 'self' data:`).
 */

export const CURRENCY = 'EUR';

export interface Product {
  sku: string;
  name: string;
  /** Minor units of CURRENCY: 1450 is €14.50. */
  price: number;
  summary: string;
  description: string;
  /** Data URI of the product picture. */
  picture: string;
}

function picture(background: string, shape: string): string {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 160 120"><rect width="160" height="120" fill="${background}"/>${shape}</svg>`;
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

export const PRODUCTS: readonly Product[] = [
  {
    sku: 'MUG-STONE',
    name: 'Stoneware mug',
    price: 1450,
    summary: 'Hand-glazed, 350 ml.',
    description: 'A heavy, hand-glazed stoneware mug that keeps tea warm. Dishwasher safe. 350 ml.',
    picture: picture('#e7eef4', '<rect x="55" y="38" width="44" height="50" rx="6" fill="#3c6e91"/><path d="M99 50h9a10 10 0 0 1 0 24h-9" fill="none" stroke="#3c6e91" stroke-width="6"/>'),
  },
  {
    sku: 'TEA-SENCHA',
    name: 'Sencha, loose leaf 100 g',
    price: 890,
    summary: 'Fresh, grassy green tea.',
    description: 'First-flush Japanese sencha. Brew at 75 °C for one minute; good for three infusions.',
    picture: picture('#eef5e6', '<ellipse cx="80" cy="62" rx="34" ry="18" fill="#5d8a3a" transform="rotate(-25 80 62)"/><path d="M56 78 104 46" stroke="#eef5e6" stroke-width="3"/>'),
  },
  {
    sku: 'POT-IRON',
    name: 'Cast-iron teapot',
    price: 5900,
    summary: 'Enamelled inside, 0.8 l.',
    description: 'A traditional cast-iron teapot with an enamelled interior and a stainless steel infuser. 0.8 l.',
    picture: picture('#f0ece8', '<circle cx="80" cy="68" r="30" fill="#3b3b3b"/><rect x="70" y="30" width="20" height="10" rx="3" fill="#3b3b3b"/><path d="M50 62 32 50" stroke="#3b3b3b" stroke-width="7"/>'),
  },
  {
    sku: 'TOWEL-LINEN',
    name: 'Linen tea towel',
    price: 1200,
    summary: 'Stonewashed, 50 × 70 cm.',
    description: 'Stonewashed European linen that dries glassware without lint. 50 × 70 cm.',
    picture: picture('#f6efe3', '<rect x="48" y="24" width="64" height="74" rx="4" fill="#c9a46b"/><path d="M48 40h64M48 82h64" stroke="#f6efe3" stroke-width="4"/>'),
  },
  {
    sku: 'WHISK-BAMBOO',
    name: 'Bamboo matcha whisk',
    price: 1650,
    summary: '100 prongs, hand-carved.',
    description: 'A chasen carved from one piece of bamboo, for a smooth, frothy bowl of matcha.',
    picture: picture('#f3f1e2', '<path d="M64 40h32l-6 50H70z" fill="#d8c38a"/><rect x="70" y="90" width="20" height="12" rx="3" fill="#b59a5a"/>'),
  },
  {
    sku: 'GLASS-SET',
    name: 'Double-wall glasses, set of 2',
    price: 2400,
    summary: 'Borosilicate, 250 ml each.',
    description: 'Two double-walled borosilicate glasses: the tea stays hot, your fingers stay cool.',
    picture: picture('#e9f3f3', '<rect x="46" y="36" width="30" height="52" rx="5" fill="none" stroke="#4f8f8f" stroke-width="4"/><rect x="84" y="36" width="30" height="52" rx="5" fill="none" stroke="#4f8f8f" stroke-width="4"/>'),
  },
];

export function findProduct(sku: string): Product | undefined {
  return PRODUCTS.find((p) => p.sku === sku);
}
