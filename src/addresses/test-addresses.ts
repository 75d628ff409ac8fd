// Resend's test addresses (resend-compat-notes §8): mail to them produces a known outcome
// without any connection (delivery/test-addresses.ts simulates it), and their outcomes never
// reach the suppression list. delivered@, bounced@ and complained@ accept a +label;
// suppressed@ does not (as at Resend), so suppressed+x@resend.dev is an ordinary address.
const PATTERN = /^(?:(delivered|bounced|complained)(?:\+[^@]*)?|(suppressed))@resend\.dev$/i;

type TestOutcome = 'delivered' | 'bounced' | 'complained' | 'suppressed';

/** The outcome a test address stands for, or undefined for a real address. */
export function testAddressOutcome(address: string): TestOutcome | undefined {
  const match = PATTERN.exec(address.trim());
  return match ? ((match[1] ?? match[2])!.toLowerCase() as TestOutcome) : undefined;
}

/** Whether `address` is one of Resend's test addresses (whose outcomes are simulated). */
export const isTestAddress = (address: string): boolean => testAddressOutcome(address) !== undefined;
