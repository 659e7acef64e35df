import arrayGrowth from '../../rules/array-growth';
import idPattern from '../../rules/id-pattern';
import indexUsage from '../../rules/index-usage';
import validator from '../../rules/validator';
import type { Rule } from './rule';

/** Every rule, sorted by id. A meta-test keeps this list, the rules/ folders and their READMEs in step. */
export const rules: readonly Rule[] = [arrayGrowth, idPattern, indexUsage, validator];
