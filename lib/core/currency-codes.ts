/**
 * The alphabetic codes of ISO 4217: the currencies, funds and precious metals in use, the
 * testing and "no currency" codes (XTS, XXX), and codes withdrawn so recently that a provider
 * may still send them (ANG, SLL, ZWL).
 * NOTE: a code is only ever added here, never removed: refusing a signed delivery for its
 * currency answers 400 to every retry, and the event is lost.
 */
const CODES: ReadonlySet<string> = new Set(
  [
    'AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BOV BRL BSD',
    'BTN BWP BYN BZD CAD CDF CHE CHF CHW CLF CLP CNY COP COU CRC CUP CVE CZK DJF DKK DOP DZD',
    'EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD',
    'IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL',
    'MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN',
    'PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SLL SOS SRD SSP',
    'STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD USN UYI UYU UYW UZS VED',
    'VES VND VUV WST XAF XAG XAU XBA XBB XBC XBD XCD XCG XDR XOF XPD XPF XPT XSU XTS XUA XXX',
    'YER ZAR ZMW ZWG ZWL',
  ]
    .join(' ')
    .split(' '),
);

/**
 * True when `code` is an ISO 4217 alphabetic code, in any case.
 * @example isCurrencyCode('rub'); // true
 */
export function isCurrencyCode(code: string): boolean {
  return CODES.has(code.toUpperCase());
}
