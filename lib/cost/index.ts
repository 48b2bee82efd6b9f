/**
 * Cost: prices per provider and model, and what model steps cost under them. This index is pure and
 * browser-safe (the Studio's client components price live events with it); reading the price files is
 * `price-file.ts`, for the server and the CLI.
 */
export { addCosts, type Cost, costOf, costUsd, modelCost, NO_COST, type UnpricedReason, type UnpricedSteps } from './cost';
export { costText, unpricedText, usdText } from './cost-text';
export { findPrice, type ModelPrice, NO_PRICES, type PriceEntry, type PriceTable, providerFamily } from './price-table';
