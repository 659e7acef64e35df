import { rules } from '../../rules';

/**
 * A configuration (the `rules` of a --config file) that turns off every rule but `ids`: for a CLI run that tests those
 * alone, without the others' confirmations (a validator's takes its whole budget on each collection).
 */
export function onlyRules(...ids: string[]): { rules: Record<string, 'off'> } {
  return { rules: Object.fromEntries(rules.filter((r) => !ids.includes(r.id)).map((r) => [r.id, 'off' as const])) };
}
