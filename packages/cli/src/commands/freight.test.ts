import { describe, expect, it } from 'vitest';
import { spreadsheetType } from './freight.js';

describe('feira freight import', () => {
  it('D62: sends an .xlsx file as a workbook and anything else as a CSV', () => {
    expect(spreadsheetType('tabela.XLSX')).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(spreadsheetType('tabela.csv')).toBe('text/csv');
    expect(spreadsheetType('tabela.txt')).toBe('text/csv');
  });
});
