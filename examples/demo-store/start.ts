// Placeholder entry point until the demo store lands: exits cleanly so `npm start` never fails.
console.log('acquiring-checkout-kit: the demo store arrives with the checkout issue.');
