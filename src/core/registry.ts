import arrayGrowth from '../../rules/array-growth';
import clusteredTrap from '../../rules/clustered-trap';
import collectionCount from '../../rules/collection-count';
import compression from '../../rules/compression';
import documentSize from '../../rules/document-size';
import idPattern from '../../rules/id-pattern';
import indexUsage from '../../rules/index-usage';
import validator from '../../rules/validator';
import type { Rule } from './rule';

/** Every rule, sorted by id. A meta-test keeps this list, the rules/ folders and their READMEs in step. */
export const rules: readonly Rule[] = [arrayGrowth, clusteredTrap, collectionCount, compression, documentSize, idPattern, indexUsage, validator];
