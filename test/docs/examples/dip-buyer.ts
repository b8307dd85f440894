/** The guide's dip buyer, under the name the testing example of docs/strategies.md imports it by (`./dip-buyer.js`). */
export { default } from '../../../config/strategies/dip-buyer.js';
